/** Where a command writes: stdout and stderr, and whether each is a terminal. */
export interface CliIO {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Whether stdout and stderr are terminals: progress and one-time links show only there. */
  tty?: { out: boolean; err: boolean };
}
