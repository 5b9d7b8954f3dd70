// Node entry: reads the .wasm next to this file and instantiates it once.
// Adds what only Node has: files by path as inputs, and artifacts written to
// disk or to Node streams.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import createEtpackModule from './dist/etpack.mjs';
import { createApi } from './src/api.mjs';
import { platformHooks } from './src/artifact.mjs';
import { FileSource, nodeStream, writeArtifact } from './src/node-files.mjs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
let instance;

platformHooks.writeTo = writeArtifact;
platformHooks.nodeStream = nodeStream;

const platform = {
  createHasher() {
    const hash = createHash('sha256');
    return { update: (view) => hash.update(view), digest: () => hash.digest('hex') };
  },
  openFile: (path) => new FileSource(path),
};

export default function init() {
  instance ??= createEtpackModule({ wasmBinary: readFileSync(new URL('./dist/etpack.wasm', import.meta.url)) })
    .then((module) => createApi(module, platform, pkg.version));
  return instance;
}

export { EtpackError } from './src/errors.mjs';
export { Artifact } from './src/artifact.mjs';
export { FileSource };
