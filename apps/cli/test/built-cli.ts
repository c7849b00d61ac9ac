// Where the built `nexus` is: the bundle build-cli-setup.ts writes before the run, the file npm links
// as `nexus` when the package is installed.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUILT_CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/bin/nexus.js');
