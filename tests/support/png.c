/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <sys/wait.h>

#include <fcntl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "common/xmalloc.h"
#include "tests/support/png.h"
#include "tests/support/tst.h"

static uint32_t
png_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

/* The Paeth predictor of the PNG specification. */
static uint8_t
png_paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* Undoes the per-scanline filters in place; 0 or -1 on a bad filter. */
static int
png_unfilter(uint8_t *raw, uint32_t w, uint32_t h, int bpp)
{
	size_t stride = (size_t)w * bpp, y, x;
	uint8_t *prev = NULL;

	for (y = 0; y < h; y++) {
		uint8_t *line = raw + y * (stride + 1), f = line[0], *px = line + 1;

		for (x = 0; x < stride; x++) {
			int a = x >= (size_t)bpp ? px[x - bpp] : 0;
			int b = prev != NULL ? prev[x] : 0;
			int c = prev != NULL && x >= (size_t)bpp ?
			    prev[x - bpp] : 0;

			switch (f) {
			case 0: break;
			case 1: px[x] = (uint8_t)(px[x] + a); break;
			case 2: px[x] = (uint8_t)(px[x] + b); break;
			case 3: px[x] = (uint8_t)(px[x] + (a + b) / 2); break;
			case 4: px[x] = (uint8_t)(px[x] + png_paeth(a, b, c));
				break;
			default: return -1;
			}
		}
		prev = px;
	}
	return 0;
}

int
tst_png_read(const char *path, struct tst_png *png)
{
	static const uint8_t sig[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };
	uint8_t *file = NULL, *idat = NULL, *raw = NULL, *p;
	size_t nfile = 0, nidat = 0, y, x;
	uLongf nraw;
	uint32_t w = 0, h = 0;
	int bpp = 0, rc = -1;
	FILE *fp;

	memset(png, 0, sizeof(*png));
	if ((fp = fopen(path, "rb")) == NULL)
		return -1;
	fseek(fp, 0, SEEK_END);
	nfile = (size_t)ftell(fp);
	rewind(fp);
	file = xmalloc(nfile + 1);
	if (fread(file, 1, nfile, fp) != nfile || nfile < 8 ||
	    memcmp(file, sig, 8) != 0)
		goto out;
	idat = xmalloc(nfile);
	for (p = file + 8; p + 12 <= file + nfile;) {
		uint32_t len = png_be32(p);
		const uint8_t *type = p + 4, *data = p + 8;

		if (data + len + 4 > file + nfile)
			goto out;
		if (memcmp(type, "IHDR", 4) == 0 && len >= 13) {
			w = png_be32(data);
			h = png_be32(data + 4);
			/* 8-bit, colour type 2 (RGB) or 6 (RGBA), no interlace */
			if (data[8] != 8 || data[12] != 0 ||
			    (data[9] != 2 && data[9] != 6))
				goto out;
			bpp = data[9] == 2 ? 3 : 4;
		} else if (memcmp(type, "IDAT", 4) == 0) {
			memcpy(idat + nidat, data, len);
			nidat += len;
		} else if (memcmp(type, "IEND", 4) == 0)
			break;
		p += 12 + len;
	}
	if (w == 0 || h == 0 || bpp == 0 || w > 20000 || h > 20000)
		goto out;
	nraw = (uLongf)((size_t)h * ((size_t)w * bpp + 1));
	raw = xmalloc(nraw);
	if (uncompress(raw, &nraw, idat, nidat) != Z_OK ||
	    nraw != (uLongf)((size_t)h * ((size_t)w * bpp + 1)) ||
	    png_unfilter(raw, w, h, bpp) < 0)
		goto out;
	png->width = w;
	png->height = h;
	png->rgb = xmalloc((size_t)w * h * 3);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			memcpy(png->rgb + (y * w + x) * 3,
			    raw + y * ((size_t)w * bpp + 1) + 1 + x * bpp, 3);
	rc = 0;
out:
	fclose(fp);
	free(file);
	free(idat);
	free(raw);
	return rc;
}

size_t
tst_png_count(const struct tst_png *png, uint8_t r, uint8_t g, uint8_t b,
    int tol)
{
	size_t i, n = 0, npx = (size_t)png->width * png->height;

	for (i = 0; i < npx; i++) {
		const uint8_t *px = png->rgb + i * 3;

		if (abs(px[0] - r) <= tol && abs(px[1] - g) <= tol &&
		    abs(px[2] - b) <= tol)
			n++;
	}
	return n;
}

size_t
tst_png_nonwhite(const struct tst_png *png)
{
	size_t i, n = 0, npx = (size_t)png->width * png->height;

	for (i = 0; i < npx; i++)
		if (png->rgb[i * 3] <= 250 || png->rgb[i * 3 + 1] <= 250 ||
		    png->rgb[i * 3 + 2] <= 250)
			n++;
	return n;
}

void
tst_png_release(struct tst_png *png)
{
	free(png->rgb);
	memset(png, 0, sizeof(*png));
}

/* Flags that keep headless Chromium off the network and out of $HOME. */
int
tst_chromium_screenshot(const char *html_path, const char *png_path,
    int width, int height)
{
	const char *bin = "/usr/bin/chromium";
	char shot[1024], size[64], profile[1024], url[1024], *dir;
	int status = -1, devnull;
	pid_t pid;

	if (access(bin, X_OK) != 0)
		return 1;
	if ((dir = tst_tmpdir("chromium")) == NULL)
		return -1;
	snprintf(shot, sizeof(shot), "--screenshot=%s", png_path);
	snprintf(size, sizeof(size), "--window-size=%d,%d", width, height);
	snprintf(profile, sizeof(profile), "--user-data-dir=%s", dir);
	snprintf(url, sizeof(url), "file://%s", html_path);
	{
		char *argv[] = { (char *)bin, "--headless", "--no-sandbox",
		    "--disable-gpu", "--disable-quic", "--no-first-run",
		    "--disable-background-networking",
		    "--disable-component-update", "--disable-sync",
		    "--hide-scrollbars", profile, shot, size, url, NULL };

		/* Chromium is chatty on stderr about D-Bus; keep the log clean. */
		if ((pid = fork()) == 0) {
			devnull = open("/dev/null", O_RDWR);
			dup2(devnull, 1);
			dup2(devnull, 2);
			execv(bin, argv);
			_exit(127);
		}
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	tst_rmrf(dir);
	free(dir);
	return status == 0 && access(png_path, R_OK) == 0 ? 0 : -1;
}
