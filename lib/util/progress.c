/* progress.c - see progress.h. The state is guarded by one mutex, taken by
 * the calls, by the ticker thread that redraws the elapsed time once a
 * second, and around fmv_error/fmv_warn's lines (the message hook), so that
 * nothing prints into the middle of a bar. */
#include "util/progress.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define BAR_CELLS 12
#define DEFAULT_WIDTH 80
#define MIN_WIDTH 20
/* "\r" then erase to the end of the line: the bar is redrawn in place. */
#define CLEAR_LINE "\r\033[K"

struct progress {
    FILE *out;
    char *prefix;
    int bar;                 /* draws a bar instead of plain lines */
    int fixed_width;         /* PROGRESS_BAR: 80 columns, not the terminal's */
    struct timespec t0;
    pthread_mutex_t lock;
    char *message;           /* the current step, NULL before the first */
    size_t k, n;
    int drawn;               /* the bar is on the terminal's current line */
    int ticking;             /* the ticker thread runs */
    int stopping;
    pthread_cond_t wake;
    pthread_t ticker;
};

static double elapsed_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Cut s to at most max bytes without splitting a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max) return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    return n;
}

size_t progress_render(char *buf, size_t size, const char *prefix, const char *message, size_t k, size_t n,
                       double elapsed_s, int width)
{
    if (width < MIN_WIDTH) width = MIN_WIDTH;
    struct strbuf sb = STRBUF_INIT;
    sb_adds(&sb, prefix);
    if (n > 0) {
        size_t done = k > 0 ? k - 1 : 0;
        if (done > n) done = n;
        size_t filled = done * BAR_CELLS / n;
        sb_adds(&sb, " [");
        for (size_t i = 0; i < BAR_CELLS; i++) sb_addc(&sb, i < filled ? '=' : i == filled ? '>' : ' ');
        sb_addf(&sb, "] %zu/%zu", k, n);
    }
    long secs = elapsed_s > 0 ? (long)elapsed_s : 0;
    if (secs >= 3600) sb_addf(&sb, " %ld:%02ld:%02ld", secs / 3600, secs / 60 % 60, secs % 60);
    else sb_addf(&sb, " %ld:%02ld", secs / 60, secs % 60);
    if (message && *message) {
        sb_addc(&sb, ' ');
        /* one line: a message with a newline would break the redraw */
        size_t line = strcspn(message, "\r\n");
        sb_add(&sb, message, line);
    }
    size_t len = utf8_cut(sb_str(&sb), sb.len, (size_t)width);
    if (size > 0) {
        size_t copy = len < size - 1 ? len : size - 1;
        memcpy(buf, sb_str(&sb), copy);
        buf[copy] = 0;
    }
    sb_free(&sb);
    return len;
}

static int terminal_width(const struct progress *p)
{
    if (p->fixed_width) return DEFAULT_WIDTH;
    struct winsize ws;
    if (ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col - 1;   /* the last column would wrap on some terminals */
    return DEFAULT_WIDTH;
}

/* With the lock held. */
static void draw(struct progress *p)
{
    if (!p->message) return;
    char line[1024];
    progress_render(line, sizeof line, p->prefix, p->message, p->k, p->n, elapsed_since(&p->t0), terminal_width(p));
    fprintf(p->out, CLEAR_LINE "%s", line);
    fflush(p->out);
    p->drawn = 1;
}

/* With the lock held. */
static void clear(struct progress *p)
{
    if (!p->drawn) return;
    fputs(CLEAR_LINE, p->out);
    fflush(p->out);
    p->drawn = 0;
}

static void message_hook(void *arg, int before)
{
    struct progress *p = arg;
    if (before) {
        pthread_mutex_lock(&p->lock);
        clear(p);
    } else {
        draw(p);
        pthread_mutex_unlock(&p->lock);
    }
}

static void *ticker_main(void *arg)
{
    struct progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        if (!p->stopping && p->drawn) draw(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void start_ticker(struct progress *p)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->wake, &ca);
    pthread_condattr_destroy(&ca);
    /* The ticker must not take SIGINT/SIGTERM: the main thread's waits are
     * what the command's handlers interrupt. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    p->ticking = pthread_create(&p->ticker, NULL, ticker_main, p) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!p->ticking) pthread_cond_destroy(&p->wake);
}

struct progress *progress_start(FILE *out, const char *prefix, enum progress_mode mode)
{
    struct progress *p = xcalloc(1, sizeof *p);
    p->out = out;
    p->prefix = xstrdup(prefix);
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
    pthread_mutex_init(&p->lock, NULL);
    if (mode == PROGRESS_BAR) {
        p->bar = 1;
        p->fixed_width = 1;
    } else if (mode == PROGRESS_AUTO && isatty(fileno(out))) {
        p->bar = 1;
        start_ticker(p);
    }
    if (p->bar) fmv_set_message_hook(message_hook, p);
    return p;
}

static char *vformat(const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int len = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    size_t size = (size_t)(len > 0 ? len : 0) + 1;
    char *s = xmalloc(size);
    vsnprintf(s, size, fmt, ap);
    return s;
}

void progress_step(struct progress *p, size_t k, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&p->lock);
    free(p->message);
    p->message = msg;
    p->k = k;
    p->n = n;
    if (p->bar) {
        draw(p);
    } else {
        fprintf(p->out, "%s: %s", p->prefix, msg);
        if (n > 0) fprintf(p->out, " (%zu/%zu)", k, n);
        fputc('\n', p->out);
        fflush(p->out);
    }
    pthread_mutex_unlock(&p->lock);
}

void progress_say(struct progress *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&p->lock);
    clear(p);
    fprintf(p->out, "%s: ", p->prefix);
    vfprintf(p->out, fmt, ap);
    fputc('\n', p->out);
    if (p->bar) draw(p);
    else fflush(p->out);
    pthread_mutex_unlock(&p->lock);
    va_end(ap);
}

void progress_write(struct progress *p, const char *text)
{
    pthread_mutex_lock(&p->lock);
    clear(p);
    fputs(text, p->out);
    if (p->bar) draw(p);
    else fflush(p->out);
    pthread_mutex_unlock(&p->lock);
}

int progress_is_bar(const struct progress *p)
{
    return p->bar;
}

void progress_finish(struct progress *p)
{
    if (!p) return;
    if (p->bar) fmv_set_message_hook(NULL, NULL);
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    if (p->ticking) pthread_cond_signal(&p->wake);
    clear(p);
    pthread_mutex_unlock(&p->lock);
    if (p->ticking) {
        pthread_join(p->ticker, NULL);
        pthread_cond_destroy(&p->wake);
    }
    pthread_mutex_destroy(&p->lock);
    free(p->message);
    free(p->prefix);
    free(p);
}
