/* SPDX-License-Identifier: MIT */
/*
 * Private to config/: the load context shared by the reader (config.c), the
 * section and key tables (section.c) and the value parsers (value.c).
 * Nothing outside config/ includes this header.
 *
 * A load runs in one struct config_ctx.  The reader hands inih one line at a
 * time and counts lines, so every message can name FILE:LINE even though
 * Debian's inih does not pass line numbers to the handler.  Section headers
 * are tracked here rather than through inih, because inih never calls the
 * handler for an empty section and truncates long section names.
 */
#ifndef CONFIG_INTERNAL_H
#define CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/names.h"
#include "config/config.h"

#define CONFIG_MAX_KEYS		32	/* keys of the largest section */
#define CONFIG_MAX_LINE		8192	/* bytes in one line */
#define CONFIG_MAX_FILE		(1 << 20)
#define CONFIG_MAX_ERRORS	500	/* further errors are counted only */
#define CONFIG_NAME_MAX		64	/* section, group, user, metric names */

#define CONFIG_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define CONFIG_FIELD(base, key, type) \
	((type *)(void *)((char *)(base) + (key)->offset))

struct config_ctx;
struct config_key;

/*
 * Parses value into the field key->offset bytes into base (the section's
 * struct).  Returns 0, or a negative code with err filled; the field keeps
 * its old value on failure.
 */
typedef int (*config_parse_fn)(const struct config_ctx *ctx,
    const struct config_key *key, void *base, const char *value,
    struct bd_error *err);

enum config_key_flag {
	CONFIG_KEY_REQUIRED = 1 << 0,
	CONFIG_KEY_ZERO_OK = 1 << 1,	/* a duration that may be 0 */
	CONFIG_KEY_URL = 1 << 2,	/* user-info hidden in JSON output */
};

/*
 * One key of a section.  Its default is the text a user would write, fed
 * to the same parser when the section begins, so a default cannot differ
 * from what the file would give; NULL means unset (or required).
 */
struct config_key {
	const char	*name;
	config_parse_fn	 parse;
	size_t		 offset;
	int		 flags;		/* enum config_key_flag bits */
	uint64_t	 min, max;	/* for integers */
	const struct name_value *words; /* for enums, stored as an int */
	const char	*def;		/* default, as written in the file */
	enum config_reload reload;	/* what a reload does with a change */
	const char	*doc;		/* one line, a full sentence */
};

struct config_section_def {
	const char		*type;		/* "host" in [host NAME] */
	int			 named;
	const struct config_key	*keys;
	size_t			 nkeys;
	/* What a reload does with an added or removed named section. */
	enum config_reload	 reload;
	/* Makes room for the section; 0, or -1 after reporting an error. */
	int			(*begin)(struct config_ctx *, const char *name);
	/* The struct the keys of the current section fill. */
	void			*(*base)(struct config *, size_t index);
	/* Checks that span keys of one section, run at its end. */
	void			(*finish)(struct config_ctx *);
};

struct config_msg {
	int	 line;
	size_t	 seq;		/* keeps messages of one line in order */
	char	*text;
};

struct config_ctx {
	struct config	*cfg;
	const char	*file;		/* as the caller named it, for messages */
	char		*basedir;	/* absolute directory of the file */

	/* Reader state. */
	const char	*buf;
	size_t		 len;
	size_t		 pos;
	int		 lineno;
	int		 at_line_start;

	/* The section being read. */
	const struct config_section_def *sec;	/* NULL: none */
	int		 skip;		/* bad header: ignore keys until the next */
	size_t		 index;
	int		 sec_line;
	char		 label[CONFIG_NAME_MAX + 32];	/* "[host a]" */
	int		 key_line[CONFIG_MAX_KEYS];	/* 0: not set */

	int		 daemon_line;	/* header lines, 0: not seen */
	int		 repo_line;
	int		 (*sweep_lines)[CONFIG_MAX_KEYS];	/* per sweep */

	struct config_msg *msgs;
	size_t		 nmsgs;
	size_t		 dropped;
};

/* config.c */
const void *config_named_find(const void *array, size_t n, size_t size,
	    const char *name);
void	config_error(struct config_ctx *ctx, int line, const char *label,
	    const char *key, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));

/*
 * Rows: KEY for a field named as its key, KEYF for a field of another name,
 * KEYE for an enum.  D is the default as the file would write it (NULL:
 * none), R the reload class, and the last word the one-line doc.
 */
#define KEY(st, name, fn, flags, lo, hi, d, r, doc) \
	{ #name, config_value_##fn, offsetof(struct st, name), flags, lo, hi, \
	  NULL, d, r, doc }
#define KEYF(st, name, field, fn, flags, d, r, doc) \
	{ #name, config_value_##fn, offsetof(struct st, field), flags, 0, 0, \
	  NULL, d, r, doc }
#define KEYE(st, name, words, d, r, doc) \
	{ #name, config_value_enum, offsetof(struct st, name), 0, 0, 0, \
	  words, d, r, doc }
#define REQ	CONFIG_KEY_REQUIRED
#define LIVE	CONFIG_RELOAD_LIVE
#define RESTART	CONFIG_RELOAD_RESTART

/* section.c */
/* Grows a section array by one zeroed element, at ctx->index. */
#define CONFIG_APPEND(ctx, arr, n) \
	((arr) = xreallocarray((arr), (n) + 1, sizeof(*(arr))), \
	    (ctx)->index = (n)++, \
	    memset(&(arr)[(ctx)->index], 0, sizeof(*(arr))), \
	    &(arr)[(ctx)->index])
/* A second section of this type and name (first: its line, 0 none). */
int	config_dup_check(struct config_ctx *ctx, int first);
/* Line of a key of the current section, 0 when it was not set. */
int	config_key_line(const struct config_ctx *ctx, const char *name);
const struct config_section_def *config_section_find(const char *type);
/* The section types in file order; *n is set to their count. */
const struct config_section_def *config_section_all(size_t *n);
void	config_defaults(struct config *cfg);
/* Sets every key of def that has a default in base, from its text. */
void	config_section_defaults(const struct config_section_def *def,
	    void *base);
void	config_section_start(struct config_ctx *ctx, const char *text,
	    size_t len);
void	config_section_skip(struct config_ctx *ctx);
void	config_section_end(struct config_ctx *ctx);
void	config_section_key(struct config_ctx *ctx, const char *name,
	    const char *value);
void	config_check_references(struct config_ctx *ctx);

/* lab.c: the [lab] rows and section hooks. */
#define CONFIG_LAB_NKEYS	14
extern const struct name_value config_lab_type_words[];
extern const struct config_key config_lab_keys[CONFIG_LAB_NKEYS];
int	config_lab_begin(struct config_ctx *ctx, const char *name);
void	*config_lab_base(struct config *cfg, size_t index);
void	config_lab_finish(struct config_ctx *ctx);
/* After the whole file: the lab's group is served by nothing else. */
void	config_lab_check(struct config_ctx *ctx, const struct config_lab *l);
/* lab_render.c: 0, or -1 with an unknown placeholder's name in bad. */
int	config_lab_artifact_check(const char *tmpl, char *bad, size_t badsz);

/* reload.c */
/* 1 when holds are out and took over what cfg owned; cfg is then empty. */
int	config_retire(struct config *cfg);

/* json.c */
/* 1 when key holds the same value in the section structs a and b. */
int	config_key_equal(const struct config_key *key, const void *a,
	    const void *b);

/* value.c */
extern const struct name_value config_host_key_words[];
extern const struct name_value config_role_words[];
extern const struct name_value config_verify_words[];
extern const struct name_value config_auto_fixups_words[];

int	config_name_valid(const char *s);
int	config_value_string(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_paths(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_names(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_path(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_name(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_uint(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_mode(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_duration(const struct config_ctx *,
	    const struct config_key *, void *, const char *, struct bd_error *);
int	config_value_fraction(const struct config_ctx *,
	    const struct config_key *, void *, const char *, struct bd_error *);
int	config_value_enum(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_roles(const struct config_ctx *, const struct config_key *,
	    void *, const char *, struct bd_error *);
int	config_value_address(const struct config_ctx *,
	    const struct config_key *, void *, const char *, struct bd_error *);
/* How a metric name may look, for messages (common/names.h has the rule). */
#define CONFIG_METRIC_RULE	"printable, up to 255 bytes, no comma"
int	config_value_metric(const struct config_ctx *,
	    const struct config_key *, void *, const char *, struct bd_error *);
int	config_value_metrics(const struct config_ctx *,
	    const struct config_key *, void *, const char *, struct bd_error *);
/* The next item of a comma list into item; 1, 0 at the end, or -errno. */
int	config_list_next(const char **s, char *item, size_t size, size_t *n,
	    struct bd_error *err);

/* sweep.c: the value kinds only [sweep] uses. */
int	config_sweep_value_names(const struct config_ctx *,
	    const struct config_key *, void *, const char *, struct bd_error *);
int	config_sweep_value_schedule(const struct config_ctx *,
	    const struct config_key *, void *, const char *, struct bd_error *);
int	config_sweep_value_priority(const struct config_ctx *,
	    const struct config_key *, void *, const char *, struct bd_error *);
void	config_sweep_names_free(struct config_names *names);

#endif
