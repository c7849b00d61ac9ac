// The server's defaults, in a module of their own that imports nothing: the CLI's help shows them
// without loading the server.

/** Where `nexus serve` listens unless told otherwise: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7700;
/** The largest request body the HTTP API accepts. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
