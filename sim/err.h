/* sim/err.h: status codes and the error object every layer fills in.
 *
 * Library code never prints and never exits: it returns a negative SIM_E*
 * code and writes one message into a caller-supplied sim_err, which the
 * command layer prints once (STYLE.md 6.4). A message names the file and line
 * when the error came from an input file, so it reads "FILE:LINE: message".
 */
#ifndef SIM_ERR_H
#define SIM_ERR_H

#include <stddef.h>

enum {
    SIM_CONTINUE = 1, /* an iteration that is not finished (not an error) */
    SIM_OK = 0,
    SIM_EINVAL = -1,    /* a caller broke a precondition */
    SIM_ECONFIG = -2,   /* an input file or option is wrong */
    SIM_EIO = -3,       /* reading or writing failed */
    SIM_ENOTFOUND = -4, /* a named thing does not exist */
    SIM_ENUMERIC = -5,  /* a numerical method failed or gave a wrong answer */
    SIM_EUSAGE = -6,    /* command-line usage error (exit status 2) */
    SIM_EINTR = -7      /* stopped by a signal before finishing */
};

typedef struct sim_err {
    int code;       /* SIM_OK or a SIM_E* code */
    int line;       /* line in file, 0 when unknown */
    char file[512]; /* input file the error refers to, "" when none */
    char msg[1536]; /* the message, without the "FILE:LINE: " prefix */
} sim_err;

/* Where a file reader places the breach of a models/ rule. A rule about
 * values read from a file is reported with the message "KEY: text", KEY the
 * file's key path, file NULL and line one of these; io/cfg.c
 * (cfg_fail_rule) turns it into FILE:LINE: the line of the group holding
 * KEY (a missing key, a combination of keys) or of KEY's own value (the
 * value itself is refused; its group when the key was not written). */
enum { SIM_ERR_AT_GROUP = 0, SIM_ERR_AT_KEY = 1 };

/* Clears e to SIM_OK. e may be NULL. */
void sim_err_clear(sim_err *e);

/* Records an error and returns code, so that callers can write
 * `return sim_err_set(err, SIM_ECONFIG, path, line, "...", ...);`.
 * file may be NULL, line may be 0. e may be NULL (the message is dropped).
 * Errors: none; never allocates. */
int sim_err_set(sim_err *e, int code, const char *file, int line,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Writes "FILE:LINE: msg", "FILE: msg" or "msg" into buf (always
 * NUL-terminated). Returns buf. */
char *sim_err_format(const sim_err *e, char *buf, size_t n);

/* Short name of a code ("invalid argument", ...). Never NULL. */
const char *sim_strerror(int code);

#endif
