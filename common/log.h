/* SPDX-License-Identifier: MIT */
/*
 * Logging for the daemon and its client: stderr in the foreground, syslog
 * otherwise.  Only daemon/ and the programs' main files call the log_*
 * functions; library modules return a struct bd_error instead.  The level
 * enum and its name table live here so config/ can parse log_level without
 * reaching into daemon/.  Control characters and bytes that are not UTF-8
 * are written escaped (\n, \x1b), so one call is always one line.
 */
#ifndef COMMON_LOG_H
#define COMMON_LOG_H

#include "common/names.h"

enum log_level {
	LOG_LEVEL_ERROR = 0,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/*
 * In the foreground, when stderr is journald's stream (JOURNAL_STREAM, as
 * systemd sets it), lines carry sd-daemon "<N>" priorities and no stamp.
 */
void	log_init(const char *progname, int foreground, enum log_level level);
/* 1 when stderr is the journal stream systemd named in JOURNAL_STREAM. */
int	log_journal_stream(void);
void	log_set_level(enum log_level level);
/* The one table of level names ("error", "warn", "info", "debug"). */
extern const struct name_value log_level_words[];

/*
 * log_warn appends strerror(errno); log_warnx does not (OpenBSD style).
 * Every log function leaves errno as it found it.
 */
/* What lost work or needs the administrator (bisectd.conf(5), log_level). */
void	log_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error the daemon stops on: written at any log_level, then return. */
void	log_fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
