// What doctor reports: a broken invariant (or a warning), as data. Its own module so the ledger's
// checks and each strategy's checks share it without importing one another.

export interface Problem {
  code: string;
  message: string;
  ids: string[];
  /** An error breaks an invariant; a warning is worth knowing but every read still works. Default error. */
  severity?: 'error' | 'warning';
}
