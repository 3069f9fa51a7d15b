/* app/sweep_exec.c: the sweep's worker threads and, with FACTORYSIM_MPI,
 * its ranks (see sweep_exec.h).
 *
 * Threads: workers take the next case of the rank's share under one mutex
 * and append finished cases to a FIFO of at most `jobs` cases: a worker
 * whose case is done waits while the FIFO is full (back-pressure), so a
 * writer slower than the workers (a slow disk, a big time series) holds at
 * most 2 x jobs finished or running cases in memory, not the whole sweep.
 * The calling thread is the only one
 * that stores (rank 0) or sends (other ranks), and the only one that calls
 * MPI (MPI_THREAD_FUNNELED). Workers block SIGINT/SIGTERM so that the
 * signal lands on the calling thread, whose handler only sets a flag.
 *
 * Ranks (MPI): rank r runs todo[j] for j % n_ranks == r. A finished case
 * travels to rank 0 as a header {case, status, length, rank} (TAG_HEAD)
 * followed by its replications packed by models/respack.h or its error
 * text (TAG_BODY); TAG_DONE says a rank has no more cases; TAG_STOP from
 * rank 0 asks the others to stop starting cases. Rank 0 polls for messages
 * every POLL_MS while it waits for its own workers, so remote senders never
 * wait long. One rank per node with --jobs = its cores, or one rank per
 * core with --jobs 1, both work.
 *
 * What a case computes is app/runcase.h's business, not this file's: it
 * only decides where and when cases run and who stores them, and never
 * stores or prints itself (the caller's callback does).
 */
#include "app/sweep_exec.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/runcase.h"
#include "io/scenario_cfg.h"
#include "models/respack.h"
#include "sim/mem.h"

#ifdef FACTORYSIM_MPI
#include <mpi.h>
enum { TAG_HEAD = 11, TAG_BODY = 12, TAG_DONE = 13, TAG_STOP = 14 };
#endif

/* Milliseconds the writer sleeps between checks for signals and, with MPI,
 * for messages from other ranks. */
#define POLL_MS_LOCAL 200
#define POLL_MS_MPI 2

static volatile sig_atomic_t sweep_signal;
static size_t peak_queued; /* sweep_exec_peak_queued */
static int mpi_rank_v = 0, mpi_size_v = 1, mpi_on = 0;

static void on_signal(int sig)
{
    (void)sig;
    sweep_signal = 1;
}

void sweep_exec_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* The second signal gets the default action: a stuck case can always
     * be killed, and stored cases are committed transactions. */
    sa.sa_flags = (int)SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int sweep_exec_stopped(void)
{
    return sweep_signal != 0;
}

/* The overrides of case i, in order: the base ones (--set, --seed...), then
 * the grid's for this case. *ov (OUT) borrows from c and *cov; free *cov
 * with sweep_overrides_free(*cov, n_axes), then both arrays. */
static size_t case_overrides(const sweep_ctx *c, size_t i, const char ***ov,
                             char ***cov)
{
    size_t na = c->g->n_axes, n = c->n_base + na;
    *ov = sim_xcalloc(n ? n : 1, sizeof **ov);
    *cov = sim_xcalloc(na ? na : 1, sizeof **cov);
    for (size_t k = 0; k < c->n_base; k++)
        (*ov)[k] = c->base_ov[k];
    sweep_case_overrides(c->g, i, *cov);
    for (size_t a = 0; a < na; a++)
        (*ov)[c->n_base + a] = (*cov)[a];
    return n;
}

void sweep_ctx_default(sweep_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->failures = 1;
    c->model_uncertainty = 1;
}

int sweep_case_scenario(const sweep_ctx *c, size_t i, scenario **s,
                        sim_err *err)
{
    const char **ov;
    char **cov;
    size_t n = case_overrides(c, i, &ov, &cov);
    int rc = scenario_load(c->scenario_path, c->cat, ov, n, s, err);
    sweep_overrides_free(cov, c->g->n_axes);
    free(cov);
    free(ov);
    return rc;
}

int sweep_case_compute(const sweep_ctx *c, size_t i, scenario **s,
                       res_rep **reps, size_t *n_reps, sim_err *err)
{
    runcase_in in;
    runcase_out out;
    const char **ov;
    char **cov;
    int rc;

    *s = NULL;
    *reps = NULL;
    *n_reps = 0;
    /* A case is a run of its scenario as `run` does it (app/runcase.h),
     * with the catalog and calibration the sweep loaded once; the grid
     * validation already made `check`'s checks, so only the weather is
     * loaded here. */
    memset(&in, 0, sizeof in);
    in.scenario_path = c->scenario_path;
    in.n_overrides = case_overrides(c, i, &ov, &cov);
    in.overrides = ov;
    in.cat = c->cat;
    in.tp = c->tp;
    in.no_failures = !c->failures;
    in.no_model_uncertainty = !c->model_uncertainty;
    in.series = (runcase_series)c->series;
    in.events = c->events;
    rc = runcase_run(&in, &out, err);
    sweep_overrides_free(cov, c->g->n_axes);
    free(cov);
    free(ov);
    if (rc == SIM_OK) {
        /* The writer stores the scenario and the replications: taken from
         * out, which then frees only the weather. */
        *s = out.s;
        *reps = out.reps;
        *n_reps = out.n_reps;
        out.s = NULL;
        out.reps = NULL;
        out.n_reps = 0;
    }
    runcase_out_free(&out);
    return rc;
}

void sweep_result_clear(sweep_result *r)
{
    for (size_t k = 0; k < r->n_reps; k++)
        res_rep_free(&r->reps[k]);
    free(r->reps);
    scenario_free(r->s);
    r->reps = NULL;
    r->n_reps = 0;
    r->s = NULL;
}

/* ---- the thread pool of one rank ---- */

typedef struct qnode {
    sweep_result r;
    struct qnode *next;
} qnode;

typedef struct pool {
    const sweep_ctx *c;
    const size_t *todo;
    size_t n_todo, next; /* next index into todo of this rank's share */
    int stop;            /* 1: start no more cases */
    unsigned active;     /* workers not yet finished */
    qnode *head, *tail;  /* finished cases, FIFO */
    size_t n_queued;     /* cases in the FIFO, <= max_queued */
    size_t max_queued;   /* the bound: one per worker */
    pthread_mutex_t mu;
    pthread_cond_t cv;    /* the writer: a case arrived or a worker ended */
    pthread_cond_t space; /* workers: the writer took a case */
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        qnode *q;
        size_t j;
        pthread_mutex_lock(&p->mu);
        if (p->stop || sweep_signal || p->next >= p->n_todo) {
            p->active--;
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        j = p->next;
        p->next += (size_t)mpi_size_v;
        pthread_mutex_unlock(&p->mu);

        q = sim_xcalloc(1, sizeof *q);
        q->r.case_i = p->todo[j];
        q->r.rank = mpi_rank_v;
        sim_err_clear(&q->r.err);
        q->r.rc = sweep_case_compute(p->c, q->r.case_i, &q->r.s, &q->r.reps,
                                     &q->r.n_reps, &q->r.err);

        pthread_mutex_lock(&p->mu);
        /* Back-pressure: the writer always drains the FIFO (also after a
         * stop), so this wait ends. */
        while (p->n_queued >= p->max_queued)
            pthread_cond_wait(&p->space, &p->mu);
        p->n_queued++;
        if (p->n_queued > peak_queued)
            peak_queued = p->n_queued;
        if (p->tail)
            p->tail->next = q;
        else
            p->head = q;
        p->tail = q;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

/* Waits on p->cv for at most ms milliseconds (p->mu held). */
static void wait_ms(pool *p, long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&p->cv, &p->mu, &ts);
}

/* ---- MPI transport ---- */

#ifdef FACTORYSIM_MPI
/* Sends finished case r to rank 0. */
static void mpi_send_result(const sweep_result *r)
{
    long head[4];
    double *buf = NULL;
    char msg[2200];
    head[0] = (long)r->case_i;
    head[1] = r->rc;
    head[3] = r->rank;
    if (r->rc == SIM_OK) {
        size_t n = respack_size(r->reps, r->n_reps);
        buf = sim_xmalloc(n * sizeof *buf);
        respack_pack(r->reps, r->n_reps, buf);
        head[2] = (long)n;
        MPI_Send(head, 4, MPI_LONG, 0, TAG_HEAD, MPI_COMM_WORLD);
        MPI_Send(buf, (int)n, MPI_DOUBLE, 0, TAG_BODY, MPI_COMM_WORLD);
        free(buf);
    } else {
        sim_err_format(&r->err, msg, sizeof msg);
        head[2] = (long)strlen(msg) + 1;
        MPI_Send(head, 4, MPI_LONG, 0, TAG_HEAD, MPI_COMM_WORLD);
        MPI_Send(msg, (int)head[2], MPI_CHAR, 0, TAG_BODY, MPI_COMM_WORLD);
    }
}

/* Receives one case header from src and its body into r. */
static void mpi_recv_result(int src, sweep_result *r)
{
    long head[4];
    memset(r, 0, sizeof *r);
    MPI_Recv(head, 4, MPI_LONG, src, TAG_HEAD, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    r->case_i = (size_t)head[0];
    r->rc = (int)head[1];
    r->rank = (int)head[3];
    sim_err_clear(&r->err);
    if (r->rc == SIM_OK) {
        double *buf = sim_xmalloc((size_t)head[2] * sizeof *buf);
        MPI_Recv(buf, (int)head[2], MPI_DOUBLE, src, TAG_BODY, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        r->rc =
            respack_unpack(buf, (size_t)head[2], &r->reps, &r->n_reps, &r->err);
        free(buf);
    } else {
        char *msg = sim_xmalloc((size_t)head[2] + 1);
        MPI_Recv(msg, (int)head[2], MPI_CHAR, src, TAG_BODY, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        msg[head[2]] = '\0';
        sim_err_set(&r->err, r->rc, NULL, 0, "%s (on rank %d)", msg, r->rank);
        free(msg);
    }
}
#endif

/* Rank 0: stores r through the callback unless the sweep already failed;
 * frees what r holds. */
static void deliver(pool *p, sweep_result *r, sweep_store_fn store, void *arg,
                    int *rc, sim_err *err)
{
    if (*rc == SIM_OK) {
        int s = store(arg, r, err);
        if (s != SIM_OK) {
            *rc = s;
            pthread_mutex_lock(&p->mu);
            p->stop = 1;
            pthread_mutex_unlock(&p->mu);
        }
    }
    sweep_result_clear(r);
}

/* Rank 0 with MPI: takes every pending message from other ranks. Returns
 * how many ranks said DONE. */
static int poll_remote(pool *p, sweep_store_fn store, void *arg, int *rc,
                       sim_err *err, int *stop_sent)
{
    int done = 0;
#ifdef FACTORYSIM_MPI
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            break;
        if (st.MPI_TAG == TAG_DONE) {
            MPI_Recv(NULL, 0, MPI_INT, st.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            done++;
        } else if (st.MPI_TAG == TAG_HEAD) {
            sweep_result r;
            mpi_recv_result(st.MPI_SOURCE, &r);
            deliver(p, &r, store, arg, rc, err);
        } else {
            break; /* not expected on rank 0 */
        }
    }
    if (!*stop_sent && (p->stop || sweep_signal)) {
        /* Ask every rank to start no more cases (a signal usually reaches
         * all ranks anyway; a store error does not). */
        for (int k = 1; k < mpi_size_v; k++)
            MPI_Send(NULL, 0, MPI_INT, k, TAG_STOP, MPI_COMM_WORLD);
        *stop_sent = 1;
    }
#else
    (void)p;
    (void)store;
    (void)arg;
    (void)rc;
    (void)err;
    (void)stop_sent;
#endif
    return done;
}

/* Other ranks with MPI: a STOP from rank 0 sets p->stop. */
static void poll_stop(pool *p)
{
#ifdef FACTORYSIM_MPI
    int flag = 0;
    MPI_Iprobe(0, TAG_STOP, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        MPI_Recv(NULL, 0, MPI_INT, 0, TAG_STOP, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_mutex_unlock(&p->mu);
    }
#else
    (void)p;
#endif
}

/* Why one long function: it is the writer's whole life, in order: start
 * the workers with signals blocked (so SIGINT lands on this thread), then
 * one loop that drains the FIFO (storing on rank 0, sending elsewhere)
 * while, with MPI, polling other ranks between waits, then join, then
 * (MPI) wait for every rank's DONE and agree on "stopped". Splitting it
 * would spread the one mutex's lock/unlock pairs over several functions;
 * the MPI parts compile out without FACTORYSIM_MPI. */
int sweep_exec(const sweep_ctx *c, const size_t *todo, size_t n_todo,
               unsigned jobs, sweep_store_fn store, void *arg, sim_err *err)
{
    pool p;
    pthread_t *th;
    sigset_t block, old;
    int rc = SIM_OK, remote_done = 0, stop_sent = 0;
    long poll_ms = mpi_on && mpi_size_v > 1 ? POLL_MS_MPI : POLL_MS_LOCAL;
    unsigned started = 0;

    memset(&p, 0, sizeof p);
    p.c = c;
    p.todo = todo;
    p.n_todo = n_todo;
    p.next = (size_t)mpi_rank_v;
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    pthread_cond_init(&p.space, NULL);
    if (jobs < 1)
        jobs = 1;
    p.max_queued = jobs;
    peak_queued = 0;
    th = sim_xcalloc(jobs, sizeof *th);
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pthread_mutex_lock(&p.mu);
    for (unsigned k = 0; k < jobs; k++)
        if (pthread_create(&th[k], NULL, worker, &p) == 0)
            started++;
    p.active = started;
    pthread_mutex_unlock(&p.mu);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started == 0) {
        free(th);
        pthread_mutex_destroy(&p.mu);
        pthread_cond_destroy(&p.cv);
        pthread_cond_destroy(&p.space);
        return sim_err_set(err, SIM_EIO, NULL, 0,
                           "cannot start worker threads: %s", strerror(errno));
    }

    pthread_mutex_lock(&p.mu);
    for (;;) {
        qnode *q;
        while (!p.head && p.active > 0) {
            if (sweep_signal)
                p.stop = 1;
            wait_ms(&p, poll_ms);
            if (mpi_on && mpi_size_v > 1) {
                pthread_mutex_unlock(&p.mu);
                if (mpi_rank_v == 0)
                    remote_done +=
                        poll_remote(&p, store, arg, &rc, err, &stop_sent);
                else
                    poll_stop(&p);
                pthread_mutex_lock(&p.mu);
            }
        }
        if (!p.head)
            break;
        q = p.head;
        p.head = q->next;
        if (!p.head)
            p.tail = NULL;
        p.n_queued--;
        pthread_cond_signal(&p.space);
        pthread_mutex_unlock(&p.mu);
        if (mpi_rank_v == 0) {
            deliver(&p, &q->r, store, arg, &rc, err);
        } else {
#ifdef FACTORYSIM_MPI
            mpi_send_result(&q->r);
#endif
            sweep_result_clear(&q->r);
        }
        free(q);
        pthread_mutex_lock(&p.mu);
    }
    pthread_mutex_unlock(&p.mu);
    for (unsigned k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    free(th);

#ifdef FACTORYSIM_MPI
    if (mpi_on && mpi_size_v > 1) {
        if (mpi_rank_v == 0) {
            struct timespec ts = {0, POLL_MS_MPI * 1000000L};
            while (remote_done < mpi_size_v - 1) {
                remote_done +=
                    poll_remote(&p, store, arg, &rc, err, &stop_sent);
                if (remote_done < mpi_size_v - 1)
                    nanosleep(&ts, NULL);
            }
        } else {
            MPI_Send(NULL, 0, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD);
            /* A STOP sent after this rank finished is still pending. */
        }
        /* Everyone agrees on "stopped by a signal": rank 0 reports it. */
        {
            int sig = sweep_signal ? 1 : 0, any = 0;
            MPI_Allreduce(&sig, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (any)
                sweep_signal = 1;
        }
    }
#else
    (void)remote_done;
    (void)stop_sent;
#endif
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    pthread_cond_destroy(&p.space);
    if (rc != SIM_OK)
        return rc;
    if (sweep_signal || p.stop)
        return sim_err_set(err, SIM_EINTR, NULL, 0, "interrupted");
    return SIM_OK;
}

size_t sweep_exec_peak_queued(void)
{
    return peak_queued;
}

/* ---- MPI setup ---- */

int sweep_mpi_rank(void)
{
    return mpi_rank_v;
}

int sweep_mpi_size(void)
{
    return mpi_size_v;
}

int sweep_mpi_init(int *argc, char ***argv, sim_err *err)
{
#ifdef FACTORYSIM_MPI
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) !=
        MPI_SUCCESS)
        return sim_err_set(err, SIM_EIO, NULL, 0, "MPI_Init_thread failed");
    if (provided < MPI_THREAD_FUNNELED) {
        MPI_Finalize();
        return sim_err_set(
            err, SIM_EIO, NULL, 0,
            "this MPI library does not support threads (FUNNELED)");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank_v);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size_v);
    mpi_on = 1;
#else
    (void)argc;
    (void)argv;
    (void)err;
#endif
    return SIM_OK;
}

void sweep_mpi_finalize(void)
{
#ifdef FACTORYSIM_MPI
    if (mpi_on) {
        /* A STOP that arrived after a rank's last check is dropped here. */
        int flag = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        do {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_STOP, MPI_COMM_WORLD, &flag,
                       MPI_STATUS_IGNORE);
            if (flag)
                MPI_Recv(NULL, 0, MPI_INT, 0, TAG_STOP, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        } while (flag);
        MPI_Finalize();
        mpi_on = 0;
    }
#endif
}

int sweep_mpi_local_size(void)
{
#ifdef FACTORYSIM_MPI
    if (mpi_on) {
        MPI_Comm node;
        int n = 1;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
        return n;
    }
#endif
    return 1;
}

int sweep_mpi_agree(int code)
{
#ifdef FACTORYSIM_MPI
    if (mpi_on) {
        int worst = code;
        MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        return worst;
    }
#endif
    return code;
}

void sweep_mpi_bcast_long(long *v, size_t n)
{
#ifdef FACTORYSIM_MPI
    if (mpi_on)
        MPI_Bcast(v, (int)n, MPI_LONG, 0, MPI_COMM_WORLD);
#else
    (void)v;
    (void)n;
#endif
}
