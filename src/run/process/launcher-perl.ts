// The Perl launcher program (launcher.ts, dialect "perl"). Perl can make the child a session
// leader itself between fork and exec, so a command costs one fork of this small process and one
// exec of /bin/sh — what `xargs` spends — where the shell launcher needs a subshell and an exec of
// `setsid` first. Measured on 500 `sh -c true` run one after another (perf stat, task-clock):
// 0.63–0.65 s of CPU, against 0.55–0.60 s for `xargs` and 0.87 s for a shell's subshell +
// `setsid` route (and 0.73–0.76 s when the launcher loads POSIX for setsid, see below). Only
// perl-base is needed, so any system Perl 5 serves.
//
// setsid(): on 64-bit x86 and ARM Linux the engine passes the system call's number (setsidSyscall
// below, as the program's argument) and the child makes it directly; elsewhere the launcher loads
// POSIX once and calls POSIX::setsid (loading POSIX makes the launcher half again as large, and
// every fork copies that). The direct call is kept only where it works: the launcher tries it once
// in a throwaway child at start, which must come out as the leader of its own process group, and
// falls back to POSIX otherwise.
//
// Protocol, one job at a time: the engine writes `J LENGTH\n` and LENGTH bytes of NUL-separated
// fields: the working folder, the log file, the stdin file, the output file (empty for none), the
// number of environment variables N, N name/value pairs, then the argv. The launcher answers
// `P PID` once the child is forked and `X STATUS OUTPUT` once it was reaped, STATUS being the
// exit status or 128 + the signal number, OUTPUT 1 when the output file exists. Field text is
// passed as bytes: none can hold a NUL (paths, environment entries and argv cannot).
//
// The child makes its session, then waits for the engine's go (the line GO_LINE, read straight
// from the launcher's stdin: the launcher itself is in waitpid meanwhile) before it runs anything:
// the engine sends it only once the group is recorded in the store, so a group that runs is always
// one that whoever claims the run next can find and stop (process-groups.ts). When the engine dies
// first, the child reads end-of-file and exits (status 125) without running the command. A go
// line left unread (a child stopped while it waited) is skipped before the next job.

/** The line the engine sends a launcher once the job's process group is recorded (a no-op for sh). */
export const GO_LINE = ":\n";

/** Linux's setsid system call number on the architectures where the launcher calls it directly. */
export function setsidSyscall(platform: string = process.platform, arch: string = process.arch): number | null {
  if (platform !== "linux") return null;
  return arch === "x64" ? 112 : arch === "arm64" ? 157 : null;
}

/** The Perl program of the process launcher: forks each command as a session leader, so its whole group can be signalled. */
export const PERL_LAUNCHER = String.raw`
use strict;
$| = 1;
binmode STDOUT;
my $sys = $ARGV[0];
# The direct system call, tried once in a throwaway child (64-bit perl only).
if (defined $sys && $sys =~ /^\d+\z/ && length(pack('p', 0)) == 8) {
  my $pid = fork;
  if (defined $pid && $pid == 0) { my $r = syscall($sys + 0); exit(($r == $$ && getpgrp() == $$) ? 0 : 1); }
  undef $sys unless defined $pid && waitpid($pid, 0) == $pid && $? == 0;
} else {
  undef $sys;
}
require POSIX unless defined $sys;
sub fail { print STDERR "switchyard: $_[0]: $!\n"; exit 127; }
# Unbuffered reads: nothing past the job is taken from the pipe, so its child reads the go line.
sub line { my ($l, $c) = (''); while (sysread(STDIN, $c, 1)) { $l .= $c; return $l if $c eq "\n"; } return undef; }
while (defined(my $header = line())) {
  next if $header eq ":\n";
  my ($n) = $header =~ /^J (\d+)\n\z/ or exit 2;
  my $buf = '';
  while (length($buf) < $n) {
    my $got = sysread(STDIN, $buf, $n - length($buf), length($buf));
    exit 2 unless $got;
  }
  my @f = split /\0/, $buf, -1;
  my ($cwd, $log, $in, $out, $nenv) = splice(@f, 0, 5);
  my @env = splice(@f, 0, 2 * $nenv);
  my $pid = fork;
  if (!defined $pid) { print "X 127 0\n"; next; }
  if ($pid == 0) {
    defined $sys ? syscall($sys + 0) : POSIX::setsid();
    # The go line is written whole (2 bytes, one write): one read takes it.
    my $got = sysread(STDIN, my $go, 2);
    exit 125 unless $got && $got == 2 && $go eq ":\n";
    open(STDOUT, '>>', $log) or exit 127;
    open(STDERR, '>&', \*STDOUT) or exit 127;
    open(STDIN, '<', $in) or fail("cannot read $in");
    chdir($cwd) or fail("cannot enter $cwd");
    while (@env) { my $k = shift @env; $ENV{$k} = shift @env; }
    exec { $f[0] } @f;
    fail("cannot run $f[0]");
  }
  print "P $pid\n";
  waitpid($pid, 0);
  my $s = $?;
  my $status = ($s & 127) ? 128 + ($s & 127) : $s >> 8;
  printf "X %d %d\n", $status, (length($out) && (-e $out || -l $out)) ? 1 : 0;
}
`;
