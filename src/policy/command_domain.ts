/**
 * A Landlock domain of its own for every command. Children of the sandbox
 * worker share the worker thread's domain, and the worker thread is a thread
 * of the server: Landlock's signal and ptrace scoping alone would let a
 * command signal that thread (SIGKILL ends the whole server) and its sibling
 * commands. So each command is started through a few lines of Perl that add
 * one more, scope-only layer (signals; ABI ≥ 6) with
 * `landlock_restrict_self` and then exec the command: the command sits in a
 * nested domain and can signal only itself and its own descendants.
 * Perl (Debian's essential perl-base) starts in a few milliseconds, unlike a
 * Deno wrapper (about 58 ms). Without perl, or below ABI 6, commands share
 * the worker's domain and check_exec_environment says so.
 *
 * @example
 * const perl = findPerl();
 * if (perl) request.argv = inOwnDomain(perl, "/usr/bin/git", request.argv);
 */

/** Where perl is looked for (absolute, so no PATH lookup is involved). */
export const PERL_CANDIDATES = ["/usr/bin/perl", "/bin/perl"] as const;

/**
 * create_ruleset(attr {fs: 0, net: 0, scoped: SIGNAL}, 24, 0), restrict_self,
 * close, then exec the absolute program with the original argv (x86_64
 * syscall numbers: 444, 446, 3). No_new_privs is inherited from the worker.
 */
const PROGRAM = [
  'my $attr = pack("QQQ", 0, 0, 2);',
  "my $fd = syscall(444, $attr, 24, 0);",
  'die "workcell: landlock_create_ruleset: $!\\n" if $fd < 0;',
  'die "workcell: landlock_restrict_self: $!\\n" if syscall(446, $fd, 0) != 0;',
  "syscall(3, $fd);",
  "my $program = shift @ARGV;",
  'exec { $program } @ARGV or do { print STDERR "$ARGV[0]: $!\\n"; exit 127 };',
].join(" ");

/** The perl to use, or null when there is none. */
export function findPerl(): string | null {
  for (const candidate of PERL_CANDIDATES) {
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** The argv that runs `argv` (whose program resolved to `program`) in a domain of its own. */
export function inOwnDomain(perl: string, program: string, argv: string[]): string[] {
  return [perl, "-e", PROGRAM, "--", program, ...argv];
}
