/* SPDX-License-Identifier: MIT */
/*
 * Just enough of PNG to look at a browser's screenshot: 8-bit RGB or RGBA,
 * not interlaced (what Chromium writes).  Used to check that a page really
 * drew its plots, by counting pixels of the plot colours.
 */
#ifndef TESTS_SUPPORT_PNG_H
#define TESTS_SUPPORT_PNG_H

#include <stddef.h>
#include <stdint.h>

struct tst_png {
	uint32_t	 width;
	uint32_t	 height;
	uint8_t		*rgb;		/* width * height * 3 bytes */
};

/* Reads path into png; 0, or -1 when it is not a PNG this reader takes. */
int	tst_png_read(const char *path, struct tst_png *png);
/* Pixels within tol of (r, g, b) on every channel. */
size_t	tst_png_count(const struct tst_png *png, uint8_t r, uint8_t g,
	    uint8_t b, int tol);
/* Pixels that are not white (all channels above 250). */
size_t	tst_png_nonwhite(const struct tst_png *png);
void	tst_png_release(struct tst_png *png);

/*
 * Screenshots an HTML file with headless Chromium into png_path at
 * width x height.  Returns 0, -1 on failure, or 1 when no Chromium is
 * installed (the caller decides whether that skips or fails).
 */
int	tst_chromium_screenshot(const char *html_path, const char *png_path,
	    int width, int height);

#endif
