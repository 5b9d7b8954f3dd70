// The executorch-pack API over one instantiated wasm module: wiring only.
// Each public operation lives in ops/ (one file per operation), each
// wasm-side class in classes/, the JS <-> wasm boundary in marshal.mjs, and
// the instance's lifetime in context.mjs / instance.mjs. Names follow
// upstream's Python API (serialize_for_executorch -> serializeForExecutorch);
// programs keep upstream's snake_case JSON shape.
import { EtpackError } from './errors.mjs';
import { CoreContext, codedAsync } from './context.mjs';
import { fileRequest, openFile } from './files-in.mjs';
import { blobs, parseReply } from './marshal.mjs';
import { sha256Of } from './sources.mjs';
import { withFetchedRanges } from './url-source.mjs';
import { defineNamedDataStore } from './classes/named-data-store.mjs';
import { defineFlatTensorSerializer } from './classes/flat-tensor-serializer.mjs';
import { serializeForExecutorch, serializePteBinary } from './ops/serialize.mjs';
import { deserializePteBinary, programToJson } from './ops/deserialize.mjs';
import { inspect } from './ops/inspect.mjs';
import { validate } from './ops/validate.mjs';
import { repack } from './ops/repack.mjs';
import { extract } from './ops/extract.mjs';
import { decodeDelegate } from './ops/delegate.mjs';
import { openBlob, openUrl } from './ops/open.mjs';
import { graph, graphTo } from './ops/graph.mjs';
import { profile, readETDump } from './ops/profile.mjs';
import { profileTrace } from './profile-trace.mjs';
import { deserializeBundledProgram, safetensorsHead, serializeBundledProgram, testCasesFromSafetensors } from './ops/bundled.mjs';
import { createWeightsApi } from './weights.mjs';
import { createDiffApi } from './diff.mjs';
import { openingModelBlobs } from './open-models.mjs';

// platform: see CoreContext (context.mjs).
export function createApi(initialModule, platform, version) {
  const core = new CoreContext(initialModule, platform);
  core.classes = {
    NamedDataStore: defineNamedDataStore(core),
    FlatTensorSerializer: defineFlatTensorSerializer(core),
  };
  // A public synchronous operation: `op(core, ...args)` through guard().
  const sync = (op) => core.guarded((...args) => op(core, ...args));
  // A public asynchronous one: its rejections are coded.
  const asyncOp = (op) => codedAsync((...args) => op(core, ...args));

  const api = {
    version,
    repack: sync(repack),
    extract: sync(extract),
    decodeDelegate: sync(decodeDelegate),
    openFile: sync(openFile),
    openBlob: asyncOp(openBlob),
    openUrl: asyncOp(openUrl),
    withFetchedRanges,
    NamedDataStore: core.classes.NamedDataStore,
    FlatTensorSerializer: core.classes.FlatTensorSerializer,
    EtpackError,
    serializeForExecutorch: sync(serializeForExecutorch),
    serializePteBinary: sync(serializePteBinary),
    deserializePteBinary: sync(deserializePteBinary),
    programToJson: sync(programToJson),
    inspect: sync(inspect),
    validate: sync(validate),
    graph: sync(graph),
    readETDump: sync(readETDump), profile: sync(profile), profileTrace,
    serializeBundledProgram: sync(serializeBundledProgram),
    deserializeBundledProgram: sync(deserializeBundledProgram),
    ready: () => core.lifetime.ready(),
    // Internals for the Node-only and streaming layers (`module` is the
    // current instance: it changes when the heap is reset).
    _internal: {
      get module() { return core.module; },
      sources: core.sources,
      withScope: (body) => core.withScope(body),
      fileRequest: (value, kind, scope, heap, what, lenient) => fileRequest(core, value, kind, scope, heap, what, lenient),
      call: (fn) => core.call(fn),
      host: (extra) => core.host(extra),
      parseReply,
      blobs,
      sha256Of,
      guard: (fn, self, args) => core.guard(fn, self, args),
      // graph()'s reply streamed as the CLI prints it (ops/graph.mjs).
      graphTo: (pte, options, write) => core.guard(() => graphTo(core, pte, options, write), null, []),
      safetensorsHead: (tensors, metadata) => core.guard(() => safetensorsHead(core, tensors, metadata), null, []),
    },
  };
  // diff, ptdFromWeights, pteWithWeights, exportWeights: built on the calls
  // above (diff.mjs, weights.mjs); the asynchronous ones open Blob/File
  // model arguments themselves (open-models.mjs).
  Object.assign(api, createWeightsApi(api), createDiffApi(api));
  api.testCasesFromSafetensors = codedAsync((files, options) => testCasesFromSafetensors(api, files, options));
  const opening = openingModelBlobs(core, api);
  for (const name of Object.keys(opening)) api[name] = codedAsync(opening[name]);
  return api;
}
