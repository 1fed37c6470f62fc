/*
 * The launcher of a test MCP server, compiled: what launcher.py does, without an interpreter's
 * start (a Python launcher costs about 10 ms of CPU, this one under 1).
 *
 *     launcher ADDRESS SKIP COMMAND...
 *
 * COMMAND is the Python launcher's own command line (skill_conformance/testing/mcp_server.py
 * with --zygote ADDRESS); the zygote at ADDRESS is asked to serve the words of COMMAND after its
 * first SKIP, on this process's stdin, stdout and stderr, as launcher.py asks it. Where that
 * cannot be asked (no zygote answers, or a text is not UTF-8), COMMAND is run instead: its
 * launcher serves through the zygote or on its own. The zygote.py module builds this file with
 * the C compiler it finds, and the world uses it where it was built.
 *
 * The request is launcher.py's: a 4-byte big-endian length, sent with the descriptors 0, 1, 2
 * and the read end of the lifeline pipe, then a marshal-ed dict {"argv", "env", "cwd", "pid"};
 * once they are sent, this process keeps /dev/null as its stdio. The zygote answers "pid N"
 * and, once the server ends, "exit STATUS" (a negative STATUS: killed by that signal).
 * Meanwhile SIGTERM, SIGINT, SIGHUP and SIGQUIT are forwarded to the server; this process then
 * exits with the server's status, or dies of the same signal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

static const int FORWARDED[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
static volatile sig_atomic_t server = 0;  /* the server's pid, once known */
static volatile sig_atomic_t pending = 0; /* signals received before it was known, as bits */

static void forward(int signum) {
    int saved = errno;
    if (server > 0)
        kill((pid_t)server, signum);
    else
        pending |= 1 << signum;
    errno = saved;
}

/* -- the request: marshal's format, as Python's marshal.loads reads it ------------------------ */

struct buffer {
    char *data;
    size_t size;
    size_t capacity;
};

static int put(struct buffer *b, const void *data, size_t size) {
    if (b->size + size > b->capacity) {
        size_t capacity = 2 * (b->capacity + size);
        char *grown = realloc(b->data, capacity);
        if (grown == NULL)
            return -1;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, data, size);
    b->size += size;
    return 0;
}

static int put_int(struct buffer *b, char type, uint32_t value) {
    unsigned char bytes[5] = {(unsigned char)type, value & 0xff, (value >> 8) & 0xff,
                              (value >> 16) & 0xff, (value >> 24) & 0xff};
    return put(b, bytes, sizeof bytes);
}

/* Whether the size bytes at text are UTF-8 that Python decodes to the same text. */
static int utf8(const unsigned char *text, size_t size) {
    size_t i = 0;
    while (i < size) {
        unsigned char c = text[i];
        size_t more;
        uint32_t code;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            more = 1, code = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            more = 2, code = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            more = 3, code = c & 0x07;
        } else {
            return 0;
        }
        if (i + more >= size)
            return 0;
        for (size_t k = 1; k <= more; k++) {
            if ((text[i + k] & 0xc0) != 0x80)
                return 0;
            code = (code << 6) | (text[i + k] & 0x3f);
        }
        if ((more == 2 && code < 0x800) || (more == 3 && code < 0x10000) || code > 0x10ffff ||
            (code >= 0xd800 && code <= 0xdfff))
            return 0;
        i += more + 1;
    }
    return 1;
}

static int put_text(struct buffer *b, const char *text, size_t size) {
    if (size > INT32_MAX || !utf8((const unsigned char *)text, size))
        return -1;
    if (put_int(b, 'u', (uint32_t)size) < 0)
        return -1;
    return put(b, text, size);
}

static int put_string(struct buffer *b, const char *text) {
    return put_text(b, text, strlen(text));
}

static int request(struct buffer *b, int argc, char **argv) {
    char cwd[8192];
    if (getcwd(cwd, sizeof cwd) == NULL)
        return -1;
    if (put(b, "{", 1) < 0 || put_string(b, "argv") < 0 || put_int(b, '[', (uint32_t)argc) < 0)
        return -1;
    for (int i = 0; i < argc; i++)
        if (put_string(b, argv[i]) < 0)
            return -1;
    if (put_string(b, "env") < 0 || put(b, "{", 1) < 0)
        return -1;
    for (char **entry = environ; *entry != NULL; entry++) {
        const char *equals = strchr(*entry, '=');
        if (equals == NULL || equals == *entry)
            continue; /* os.environ skips these too */
        if (put_text(b, *entry, (size_t)(equals - *entry)) < 0 || put_string(b, equals + 1) < 0)
            return -1;
    }
    if (put(b, "0", 1) < 0 || put_string(b, "cwd") < 0 || put_string(b, cwd) < 0)
        return -1;
    if (put_string(b, "pid") < 0 || put_int(b, 'i', (uint32_t)getpid()) < 0)
        return -1;
    return put(b, "0", 1);
}

/* -- talking to the zygote ------------------------------------------------------------------ */

static int send_request(int connection, const struct buffer *payload, int watched) {
    unsigned char header[4] = {(payload->size >> 24) & 0xff, (payload->size >> 16) & 0xff,
                               (payload->size >> 8) & 0xff, payload->size & 0xff};
    int fds[4] = {0, 1, 2, watched};
    union {
        char space[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } control;
    struct iovec part = {header, sizeof header};
    struct msghdr message = {0};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    struct cmsghdr *rights = CMSG_FIRSTHDR(&message);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(rights), fds, sizeof fds);
    ssize_t sent;
    do
        sent = sendmsg(connection, &message, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent != (ssize_t)sizeof header)
        return -1;
    for (size_t done = 0; done < payload->size;) {
        ssize_t more =
            send(connection, payload->data + done, payload->size - done, MSG_NOSIGNAL);
        if (more < 0 && errno == EINTR)
            continue;
        if (more <= 0)
            return -1;
        done += (size_t)more;
    }
    return 0;
}

/* The next line the zygote writes, without its newline; an empty one once it hangs up. */
static void next_line(int connection, char *line, size_t capacity) {
    size_t size = 0;
    for (;;) {
        char c;
        ssize_t got = recv(connection, &c, 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || c == '\n')
            break;
        if (size + 1 < capacity)
            line[size++] = c;
    }
    line[size] = '\0';
}

static int await_server(int connection) {
    char line[64];
    long value;
    next_line(connection, line, sizeof line);
    if (sscanf(line, "pid %ld", &value) != 1 || value <= 0)
        return 1;
    server = (sig_atomic_t)value;
    for (size_t i = 0; i < sizeof FORWARDED / sizeof *FORWARDED; i++)
        if (pending & (1 << FORWARDED[i]))
            kill((pid_t)value, FORWARDED[i]);
    next_line(connection, line, sizeof line);
    if (sscanf(line, "exit %ld", &value) != 1)
        return 1;
    if (value < 0) { /* the server was killed by a signal: die of the same one */
        signal((int)-value, SIG_DFL);
        kill(getpid(), (int)-value);
        return 1;
    }
    return (int)value;
}

/* The server has its own copies now: put /dev/null in place of ours, so that the server's
 * stdin and stdout end when the server closes them or exits, as they would for a process the
 * client started itself, not when this launcher exits after the zygote reports the exit. */
static void let_go_of_stdio(void) {
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0)
        return;
    for (int fd = 0; fd <= 2; fd++)
        dup2(null, fd);
    if (null > 2)
        close(null);
}

static int launch(const char *address, int argc, char **argv) {
    struct sockaddr_un where = {0};
    if (strlen(address) >= sizeof where.sun_path)
        return -1;
    where.sun_family = AF_UNIX;
    strcpy(where.sun_path, address);
    struct buffer payload = {0};
    if (request(&payload, argc, argv) < 0)
        return -1;
    int connection = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connection < 0 || connect(connection, (struct sockaddr *)&where, sizeof where) < 0)
        return -1; /* nothing was started: the caller runs the command instead */
    int lifeline[2]; /* the server reads [0]; only this process holds [1] */
    if (pipe2(lifeline, O_CLOEXEC) < 0)
        return -1;
    struct sigaction action = {0};
    action.sa_handler = forward;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof FORWARDED / sizeof *FORWARDED; i++)
        sigaction(FORWARDED[i], &action, NULL);
    int sent = send_request(connection, &payload, lifeline[0]);
    close(lifeline[0]);
    free(payload.data);
    if (sent < 0) {
        fprintf(stderr, "launcher: the zygote at %s hung up: %s\n", address, strerror(errno));
        exit(1);
    }
    let_go_of_stdio();
    int status = await_server(connection);
    close(lifeline[1]);
    close(connection);
    exit(status);
}

int main(int argc, char **argv) {
    char *end;
    long skip = argc > 2 ? strtol(argv[2], &end, 10) : -1;
    if (argc < 4 || *end != '\0' || skip < 1 || skip > argc - 3) {
        fprintf(stderr, "usage: launcher ADDRESS SKIP COMMAND...\n");
        return 2;
    }
    launch(argv[1], argc - 3 - (int)skip, argv + 3 + skip);
    execv(argv[3], argv + 3);
    fprintf(stderr, "launcher: cannot run %s: %s\n", argv[3], strerror(errno));
    return 127;
}
