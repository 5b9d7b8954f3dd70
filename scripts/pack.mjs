// `npm run pack` (workspace): the checks that belong before packing the
// published package, kept here so that npm/package.json holds no script
// reaching outside the package (an installed package has no ../scripts).
// Refuses a missing or stale build (check-dist.mjs), regenerates the
// derived files (gen-package.mjs), then runs `npm pack` in npm/ with the
// arguments given (e.g. --json --pack-destination DIR).
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (args, options = {}) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit', ...options });
run([join(root, 'scripts/check-dist.mjs')], { stdio: ['ignore', 2, 2] });
run([join(root, 'scripts/gen-package.mjs')], { stdio: ['ignore', 2, 2] });
execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', ...process.argv.slice(2)], { cwd: join(root, 'npm'), stdio: 'inherit' });
