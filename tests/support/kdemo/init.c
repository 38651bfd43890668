/* SPDX-License-Identifier: MIT */
/*
 * /init of the make demo-kernel initramfs: times getppid() with the TSC and
 * prints the booted kernel's release and the result on the console, then
 * reboots (QEMU runs with -no-reboot, so that ends it).  Built once with
 * gcc -static; it needs nothing from the kernel but a console.
 *
 * The TSC and not clock_gettime(): under TCG on a loaded host the guest
 * clocksource can fall back to jiffies, which cannot time a system call.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CALLS	200	/* system calls per batch */
#define BATCHES	301	/* batches per boot; the median is reported */

/* The cycle counter, ordered after earlier instructions by lfence. */
static inline uint64_t
tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

/* qsort order for cycle counts. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The kernel gives /init a console only when the initramfs has
 * /dev/console; without one, mount devtmpfs and open it here.
 */
static void
console(void)
{
	int fd;

	if (fcntl(1, F_GETFD) != -1)
		return;
	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	if ((fd = open("/dev/console", O_RDWR)) < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

int
main(void)
{
	static uint64_t per[BATCHES];
	struct utsname u;
	int b, i;

	console();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (uname(&u) != 0)
		strcpy(u.release, "unknown");
	printf("BISECTD-BENCH release %s\n", u.release);
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	for (b = 0; b < BATCHES; b++) {
		uint64_t t0 = tsc();

		for (i = 0; i < CALLS; i++)
			syscall(SYS_getppid);
		per[b] = (tsc() - t0) / CALLS;
	}
	qsort(per, BATCHES, sizeof(per[0]), cmp_u64);
	printf("BISECTD-BENCH {\"getppid_cycles\": %llu}\n",
	    (unsigned long long)per[BATCHES / 2]);
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
