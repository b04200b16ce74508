#!/usr/bin/env python3
# Runs a command in a real pseudo-terminal, for tests of what switchyard does at a terminal (raw
# keys, restoring the terminal, its width): `python3 pty-driver.py COMMAND ARGS...`. The command's
# terminal (stdin, stdout and stderr alike) is a pty of PTY_COLUMNS x PTY_ROWS (default 100 x 40);
# what it writes there comes out on this process's stdout, and what arrives on this process's stdin
# is typed into it, byte for byte (so "\x03" is Ctrl-C, "\r" is Enter). It exits with the command's
# exit status (128 + N for a signal). Node has no pty of its own and the project no node-pty;
# python3 is on every machine the suite runs on.

import fcntl
import os
import pty
import select
import struct
import sys
import termios


def write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]


def main():
    argv = sys.argv[1:]
    if not argv:
        sys.stderr.write("usage: pty-driver.py COMMAND [ARGS...]\n")
        return 2
    columns = int(os.environ.get("PTY_COLUMNS", "100"))
    rows = int(os.environ.get("PTY_ROWS", "40"))
    pid, master = pty.fork()
    if pid == 0:
        # The child: its stdin is the pty's slave. Its size is set before the command starts, so
        # the command reads it at once.
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        try:
            os.execvp(argv[0], argv)
        except OSError as e:
            sys.stderr.write(f"pty-driver: cannot run {argv[0]}: {e}\n")
            os._exit(127)
    stdin_open = True
    while True:
        ready, _, _ = select.select([master] + ([0] if stdin_open else []), [], [])
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every process holding the slave has closed it
                data = b""
            if not data:
                break
            write_all(1, data)
        if 0 in ready:
            data = os.read(0, 4096)
            if data:
                write_all(master, data)
            else:
                stdin_open = False
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
