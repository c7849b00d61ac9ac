// The engine's own tests take the fresh-database helper from its test entry, as others do.
export { freshPostgresDatabase } from '../../src/testing.ts';
