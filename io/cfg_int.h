/* io/cfg_int.h: what the three parts of the libconfig reader share (io/cfg.c
 * reads files and reports failures, io/cfg_get.c the typed getters,
 * io/cfg_override.c the --set overrides). Private to io/cfg*.c: the loaders
 * use io/cfg.h only. */
#ifndef IO_CFG_INT_H
#define IO_CFG_INT_H

#include "io/cfg.h"

/* One source file as read, split by lines, so that the 32-bit integer check
 * (cfg_get.c) can look at the literal as written. */
struct cfg_file {
    char *name;       /* path as libconfig reports it */
    char *text;       /* whole file, NUL-terminated; NULL if unreadable */
    size_t *line_off; /* offset of each line's start */
    size_t n_lines;
    struct cfg_file *next;
};

/* Overridden settings are reported as coming from "--set". Enough for any
 * command line; past it, further overridden settings are not tracked and their
 * messages name the scenario file instead of --set (the override itself still
 * applies). */
#define CFG_MAX_OVERRIDDEN 256

/* The file name messages give for a setting that came from --set. */
extern const char cfg_set_file[];

typedef struct cfg_ov_list {
    const config_setting_t *s[CFG_MAX_OVERRIDDEN];
    size_t n;
} cfg_ov_list;

/* The reader's list of overridden settings, created on first use (freed by
 * cfg_reader_free). */
cfg_ov_list *cfg_ov_list_get(cfg_reader *r);

/* 1 when setting s was written by an override, else 0. */
int cfg_is_overridden(const cfg_reader *r, const config_setting_t *s);

/* The cached text of source file name (read on first use; text NULL when
 * unreadable). Never NULL. */
struct cfg_file *cfg_file_get(cfg_reader *r, const char *name);

/* The path that opens source file name: libconfig names an included file as
 * written in its @include line, relative to the include folder. buf holds the
 * joined path when one is needed. */
const char *cfg_resolve(cfg_reader *r, const char *name, char *buf, size_t n);

/* The value type as a user would write it ("a group { }"), for messages. */
const char *cfg_type_name(int t);

#endif
