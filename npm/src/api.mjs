// The executorch-pack API over one instantiated wasm module. Names follow
// upstream's Python API (serialize_for_executorch -> serializeForExecutorch);
// programs keep upstream's snake_case JSON shape.
import { EtpackError, coded, invalidArgument, markCallerError } from './errors.mjs';
import { InstanceLifetime } from './instance.mjs';
import { MAX_OUTPUT_BYTES, SPECS, checkOptions, integerIn } from './options.mjs';
import { describe } from './bytes.mjs';
import { Artifact, checkSignal, throwIfAborted } from './artifact.mjs';
import { DISPOSE } from './dispose.mjs';
import { HeapCopies, Scope, Sources, blobEntry, entryOf, readSync, sha256Of, sourceRef, SOURCE } from './sources.mjs';
import { openUrlSource, withFetchedRanges } from './url-source.mjs';
import { createWeightsApi } from './weights.mjs';
import { createDiffApi } from './diff.mjs';
import {
  blobs, call as callCore, entriesFromCore, entriesToCore, parseLossless, parseReply, programPieces, pteConfigToCore,
  storeOutputFromCore, storeOutputToCore, layoutToCore, setOwn,
} from './marshal.mjs';
import { readProgramReply } from './program-reply.mjs';
import { readInspectReply } from './inspect-reply.mjs';
import { programStream } from './program-stream.mjs';

// platform: { createHasher(module) -> {update(view), digest() -> hex},
//             openFile?(path) -> a file source (Node),
//             reinstantiate?() -> a fresh module, or a Promise of one }
export function createApi(initialModule, platform, version) {
  let module = initialModule;
  const sources = new Sources(module, platform);

  // Replaced after a trap or a call that left the heap large (instance.mjs).
  const lifetime = new InstanceLifetime(module, platform.reinstantiate, (fresh) => {
    module = fresh;
    sources.module = fresh;
  });
  const guard = (fn, self, args) => lifetime.guard(fn, self, args);

  const guarded = (fn) => function guardedCall(...args) { return guard(fn, this, args); };
  const guardMethods = (cls, names) => {
    for (const name of names) {
      Object.defineProperty(cls.prototype, name, { value: guarded(cls.prototype[name]), writable: true, configurable: true });
    }
  };

  // A core call: a failed Output becomes a thrown EtpackError, and an error
  // a host callback met (an unreadable file, an unopened Blob) wins over the
  // core's report of it, because it names the real cause.
  function call(fn) {
    let out;
    try {
      out = callCore(fn);
    } catch (e) {
      sources.takeHostError();
      throw e;
    }
    try {
      sources.takeHostError();
    } catch (e) {
      out.delete();
      throw e;
    }
    return out;
  }

  // Runs `body(scope, heap)` with per-call registrations released afterwards.
  function withScope(body) {
    const scope = new Scope(sources);
    const heap = new HeapCopies(module, (length) => lifetime.programInHeap(length));
    try {
      return body(scope, heap);
    } finally {
      heap.free();
      scope.close();
    }
  }

  // The artifacts (cords) of an Output as Artifact objects: the core's own
  // bytes are copied out of the heap here (small: headers, flatbuffers,
  // before the Output is freed); input ranges stay references.
  //
  // With `heapViews` the core's bytes stay views of the heap instead: only
  // for artifacts materialised at once, while the Output lives and nothing
  // can call into wasm (which could grow and move the heap).
  function takeArtifacts(out, heapViews = false) {
    const list = [];
    for (let i = 0; i < out.cordCount(); ++i) {
      const flat = out.cordPieces(i);
      const pieces = [];
      for (let k = 0; k < flat.length; k += 4) {
        const length = flat[k + 2];
        if (flat[k] === 0) {
          const ptr = flat[k + 1] >>> 0;
          pieces.push({ bytes: heapViews ? module.HEAPU8.subarray(ptr, ptr + length) : module.HEAPU8.slice(ptr, ptr + length) });
        } else if (flat[k] === 1) {
          pieces.push({ zeros: length });
        } else {
          pieces.push({ entry: sources.get(flat[k + 1]), offset: flat[k + 3], length });
        }
      }
      list.push(new Artifact(pieces, out.cordSize(i)));
    }
    return list;
  }

  // Output options shared by every call that writes files.
  function outputOptions(options, what, spec = SPECS.output) {
    const o = checkOptions(options, spec, what);
    const callback = o.onProgress ?? null;
    // The caller's callback errors reach the caller as they are.
    const onProgress = callback && ((p) => {
      try {
        return callback(p);
      } catch (e) {
        throw markCallerError(e);
      }
    });
    return { output: o.output ?? 'bytes', onProgress };
  }

  // The files of an Output in the form asked for. 'bytes': one contiguous
  // Uint8Array each, every byte copied once (the core's bytes straight from
  // the heap unless a progress callback, which may call into wasm, runs in
  // between); onProgress counts over all files of the call.
  function deliver(out, { output, onProgress }) {
    let planned = 0;
    for (let i = 0; i < out.cordCount(); ++i) planned += out.cordSize(i);
    if (planned > MAX_OUTPUT_BYTES) {
      throw new EtpackError('RESOURCE_LIMIT', `the planned output is ${planned} bytes, over the limit of 2^40 bytes (check the alignments)`);
    }
    const artifacts = takeArtifacts(out, output === 'bytes' && !onProgress);
    if (output === 'artifact') return artifacts;
    if (output === 'blob') return artifacts.map((a) => a.toBlob());
    const totalBytes = artifacts.reduce((sum, a) => sum + a.size, 0);
    let base = 0;
    return artifacts.map((a) => {
      const bytes = a.toBytes({
        onProgress: onProgress && ((p) => onProgress({ bytesWritten: base + p.bytesWritten, totalBytes })),
      });
      base += a.size;
      return bytes;
    });
  }

  // A .pte/.ptd input (bytes, file source, Blob, Artifact): the head the core
  // parses is copied into the heap; the rest is referenced where it is.
  // `lenient` (validate, inspect): a malformed head is not an error here, the
  // core reports on what it can read.
  function fileRequest(value, kind, scope, heap, what, lenient = false) {
    const entry = entryOf(value, what);
    // Asked again with more bytes while the answer is larger (a .pte without
    // eh00: its end is found from its bytes, in rounds growing fourfold).
    // (An opened Blob or URL starts from the head it holds.)
    const held = entry.headBytes ?? entry.head?.byteLength ?? 0;
    for (let have = Math.min(entry.size, Math.max(kind === 'ptd' ? 56 : 64, held)); ;) {
      const probe = heap.putFrom(entry, 0, have);
      const out = call(() => module.headSize(kind, JSON.stringify({ probe, size: entry.size, lenient })));
      let headSize;
      try {
        headSize = JSON.parse(out.json()).head_size;
      } finally {
        out.delete();
      }
      if (headSize > have) have = headSize;
      else return { head: headSize === have ? probe : heap.putFrom(entry, 0, headSize), file: scope.entry(entry) };
    }
  }

  // 'ptd' when the file's identifier is FTxx, else 'pte' (the core then says
  // what is wrong with it).
  function kindOf(value, what) {
    const entry = entryOf(value, what);
    const id = readSync(entry, 0, Math.min(entry.size, 8));
    return id.byteLength >= 6 && id[4] === 0x46 && id[5] === 0x54 ? 'ptd' : 'pte';
  }

  class NamedDataStore {
    #live = new module.StoreHandle();  // null once deleted
    #module = module;  // the instance holding the store
    #ids = [];  // sources the store's buffers refer to; held while it lives

    constructor() {
      ++lifetime.liveStores;  // the instance is not replaced while a store lives
    }

    // The wasm-side store; a coded error (not embind's BindingError) once
    // deleted, or when the core was restarted after a failure.
    get #handle() {
      if (this.#live === null) throw new EtpackError('OBJECT_DELETED', 'this NamedDataStore was deleted (delete() or the end of its `using` block)');
      if (this.#module !== module) {
        throw new EtpackError('INTERNAL', 'this NamedDataStore was lost when the core restarted after a failure; create a new one');
      }
      return this.#live;
    }

    #run(fn) {
      call(fn).delete();
    }

    addNamedData(key, data, options = {}) {
      if (typeof key !== 'string') throw invalidArgument(`key must be a string, got ${describe(key)}`);
      const { alignment = 1, externalTag = null, tensorLayout = null } = checkOptions(options, SPECS.addNamedData, 'options');
      const entry = entryOf(data, 'data');
      const id = sources.register(entry);
      const layout = layoutToCore(tensorLayout, 'tensorLayout');
      try {
        this.#run(() => this.#handle.add(key, JSON.stringify(sourceRef(id, entry)), alignment,
          externalTag ?? '', externalTag !== null, layout ? JSON.stringify(layout) : '', sources.host()));
      } catch (e) {
        sources.release(id);
        throw e;
      }
      this.#ids.push(id);
    }

    mergeNamedDataStore(other) {
      this.#handle;  // fail before reading `other` when this store is gone
      const output = other instanceof NamedDataStore ? other.getNamedDataStoreOutput() : other;
      withScope((scope) => {
        const json = storeOutputToCore(output, scope, 'other');
        // Keep the merged buffers' sources alive with this store (no spread:
        // a store may hold any number of buffers).
        for (const id of scope.ids) this.#ids.push(id);
        scope.ids = [];
        this.#run(() => this.#handle.merge(JSON.stringify(json), sources.host()));
      });
    }

    externalizePteData(maxDataBytes, tagPrefix) {
      if (typeof tagPrefix !== 'string') throw invalidArgument('tagPrefix must be a string');
      if (!['number', 'bigint'].includes(typeof maxDataBytes) || (typeof maxDataBytes === 'number' && !Number.isSafeInteger(maxDataBytes))) {
        throw invalidArgument(`external data shard cap must be a positive integer, received ${String(maxDataBytes)}`);
      }
      const cap = integerIn(maxDataBytes, 'external data shard cap', 1, Number.MAX_SAFE_INTEGER);
      this.#run(() => this.#handle.externalize(cap, tagPrefix, sources.host()));
    }

    getNamedDataStoreOutput() {
      const out = call(() => this.#handle.output());
      try {
        return storeOutputFromCore(parseReply(out.json(), blobs(module, sources, out)));
      } finally {
        out.delete();
      }
    }

    // Deleting twice is harmless (as `using` after an explicit delete()).
    delete() {
      if (this.#live === null) return;
      const handle = this.#live;
      this.#live = null;
      --lifetime.liveStores;
      for (const id of this.#ids) sources.release(id);
      this.#ids = [];
      // A store of a replaced instance has nothing left to free.
      if (this.#module === module && !lifetime.trapped) handle.delete();
    }

    [DISPOSE]() {
      this.delete();
    }
  }
  guardMethods(NamedDataStore, ['addNamedData', 'mergeNamedDataStore', 'externalizePteData', 'getNamedDataStoreOutput', 'delete']);

  class FlatTensorSerializer {
    constructor(config = {}) {
      const { segmentAlignment = 128 } = checkOptions(config, SPECS.flatTensorConfig, 'config');
      this.config = { segmentAlignment };
    }

    serialize(payload, options = {}) {
      if (!payload || typeof payload !== 'object' || !Array.isArray(payload.buffers)) throw invalidArgument('payload must have a buffers array');
      const delivery = outputOptions(options, 'options');
      return withScope((scope) => {
        const request = {
          buffers: payload.buffers.map((b, i) => scope.data(b, `payload.buffers[${i}]`)),
          named_data: entriesToCore(payload.namedData ?? payload.named_data ?? {}, 'payload.namedData'),
          config: { segment_alignment: this.config.segmentAlignment },
        };
        const out = call(() => module.ptdSerialize(JSON.stringify(request), sources.host()));
        try {
          return deliver(out, delivery)[0];
        } finally {
          out.delete();
        }
      });
    }

    deserialize(data) {
      return withScope((scope, heap) => {
        const out = call(() => module.ptdDeserialize(JSON.stringify(fileRequest(data, 'ptd', scope, heap, 'data')), sources.host()));
        try {
          const reply = parseReply(out.json(), blobs(module, sources, out));
          return { buffers: reply.buffers, namedData: entriesFromCore(reply.named_data) };
        } finally {
          out.delete();
        }
      });
    }
  }
  guardMethods(FlatTensorSerializer, ['serialize', 'deserialize']);

  function storeRequest(store, scope, what) {
    if (store === null || store === undefined) return null;
    const output = store instanceof NamedDataStore ? store.getNamedDataStoreOutput() : store;
    return storeOutputToCore(output, scope, what);
  }

  function emitterRequest(emitter, scope) {
    const request = {};
    const mutable = emitter.mutableData ?? emitter.mutable_data ?? null;
    if (mutable !== null) {
      if (!Array.isArray(mutable)) throw invalidArgument('mutableData must be an array of byte arrays or null');
      request.mutable_data = mutable.map((b, i) => scope.data(b?.storage ?? b, `mutableData[${i}]`));
    }
    const map = emitter.externalConstantMap ?? emitter.external_constant_map ?? {};
    if (map === null || typeof map !== 'object' || Array.isArray(map)) throw invalidArgument('externalConstantMap must be an object');
    request.external_constant_map = map;
    const buffers = emitter.externalConstantBuffer ?? emitter.external_constant_buffer ?? [];
    if (!Array.isArray(buffers)) throw invalidArgument('externalConstantBuffer must be an array');
    request.external_constant_buffer = buffers.map((b, i) => scope.data(b, `externalConstantBuffer[${i}]`));
    return request;
  }

  function serializeForExecutorch(emitterOutput, config = {}, dataSerializer = undefined, namedDataStore = null, options = {}) {
    if (!emitterOutput || typeof emitterOutput !== 'object') throw invalidArgument('emitterOutput must be an object');
    const delivery = outputOptions(options, 'options');
    return withScope((scope, heap) => {
      const request = emitterRequest(emitterOutput, scope);
      request.config = pteConfigToCore(config ?? {});
      request.store = storeRequest(namedDataStore, scope, 'namedDataStore');
      let serializeData;
      if (dataSerializer === undefined || dataSerializer === null) {
        request.data_serializer_config = { segment_alignment: 128 };
      } else if (dataSerializer instanceof FlatTensorSerializer) {
        request.data_serializer_config = { segment_alignment: dataSerializer.config.segmentAlignment };
      } else if (typeof dataSerializer === 'object' && typeof dataSerializer.serialize === 'function') {
        request.custom_serializer = true;
        serializeData = (payloadJson) => {
          try {
            const payload = JSON.parse(payloadJson);
            const buffers = payload.buffers.map((ref) => (ref.src !== undefined
              ? sources.get(ref.src).view(ref.offset ?? 0, ref.size) ?? copyOut(ref)
              : module.HEAPU8.slice(ref.ptr >>> 0, (ref.ptr >>> 0) + ref.len)));
            let result;
            try {
              result = dataSerializer.serialize({ buffers, namedData: entriesFromCore(payload.named_data) });
            } catch (e) {
              throw markCallerError(e);
            }
            return JSON.stringify(scope.data(result, 'dataSerializer.serialize() result'));
          } catch (e) {
            return JSON.stringify({ error: String(e?.message ?? e) });
          }
        };
      } else {
        throw invalidArgument('dataSerializer must be a FlatTensorSerializer or an object with serialize(payload)');
      }
      const text = putProgram(emitterOutput.program, scope, heap, request);
      const out = call(() => module.serializeForExecutorch(text.ptr, text.len, JSON.stringify(request), sources.host({ serializeData })));
      try {
        const tags = JSON.parse(out.json()).ptd_tags;
        const [pte, ...files] = deliver(out, delivery);
        const ptd = {};
        tags.forEach((tag, i) => setOwn(ptd, tag, files[i]));
        return { pte, ptd };
      } finally {
        out.delete();
      }
    });
  }

  // The program into the heap for a serialize call: JSON text as it is, an
  // object as the value stream (program-stream.mjs), which the request
  // names.
  function putProgram(program, scope, heap, request) {
    if (typeof program === 'string') return heap.putText(program);
    request.program_form = 'stream';
    return heap.putProgram(programStream(program, scope));
  }

  function copyOut(ref) {
    const copy = new Uint8Array(ref.size);
    sources.get(ref.src).copyTo(copy, 0, ref.offset ?? 0, ref.size);
    return copy;
  }

  function serializePteBinary(pteFile, config = {}, options = {}) {
    if (!pteFile || typeof pteFile !== 'object') throw invalidArgument('serializePteBinary takes { program, mutableData, namedData }');
    const delivery = outputOptions(options, 'options');
    return withScope((scope, heap) => {
      const request = emitterRequest({ mutableData: pteFile.mutableData ?? pteFile.mutable_data ?? null }, scope);
      request.config = pteConfigToCore(config ?? {}, false);
      request.named_data = storeRequest(pteFile.namedData ?? pteFile.named_data ?? null, scope, 'namedData');
      const text = putProgram(pteFile.program, scope, heap, request);
      const out = call(() => module.serializePteBinary(text.ptr, text.len, JSON.stringify(request), sources.host()));
      try {
        return deliver(out, delivery)[0];
      } finally {
        out.delete();
      }
    });
  }

  // A path (Node) opened as a file source; `opened` collects what to close.
  function openPath(value, opened) {
    if (typeof value !== 'string') return value;
    const file = openFile(value);
    opened?.push(file);
    return file;
  }

  function closeAll(opened) {
    for (const f of opened) f.close();
  }

  // A path stays open: the segments returned are lazy Artifacts reading it
  // (the descriptor is closed when they are garbage-collected).
  function deserializePteBinary(data) {
    data = openPath(data, null);
    return withScope((scope, heap) => {
      const out = call(() => module.deserializePteBinary(JSON.stringify(fileRequest(data, 'pte', scope, heap, 'data')), sources.host()));
      try {
        const reply = readProgramReply(module, out, blobs(module, sources, out));
        return {
          program: reply.program,
          mutableData: reply.mutable_data,
          namedData: reply.named_data ? storeOutputFromCore(reply.named_data) : null,
        };
      } finally {
        out.delete();
      }
    });
  }

  function programToJson(program) {
    return withScope((scope, heap) => {
      const text = heap.putText(programPieces(program, scope));
      const out = call(() => module.programToJson(text.ptr, text.len, sources.host()));
      try {
        return out.json();
      } finally {
        out.delete();
      }
    });
  }

  // inspect() and validate() read the heads of the files (header and
  // flatbuffer) and peek at padding; segment data stays where it is.
  function inspect(data, options = {}) {
    const o = checkOptions(options, SPECS.inspect, 'options');
    const opened = [];
    try {
      data = openPath(data, opened);
      return inspectSource(data, o);
    } finally {
      closeAll(opened);
    }
  }

  function inspectSource(data, o) {
    return withScope((scope, heap) => {
      const kind = o.kind ?? kindOf(data, 'data');
      const request = fileRequest(data, kind, scope, heap, 'data', true);
      const out = call(() => module.inspect(kind, JSON.stringify(request), sources.host()));
      try {
        return readInspectReply(module, out);
      } finally {
        out.delete();
      }
    });
  }

  // options: { runtime: 'X.Y', backends: [id, ...], deprecatedConstantBuffer: bool }
  // (values checked in C++: src/bindings/api.cpp; keys here).
  function validate(pte, ptds = {}, options = {}) {
    if (ptds === null || typeof ptds !== 'object' || Array.isArray(ptds)) throw invalidArgument('ptds must be an object {name: bytes}');
    checkOptions(options, SPECS.validate, 'options');
    const { runtime = null, backends = null, deprecatedConstantBuffer = false } = options ?? {};
    const opened = [];
    try {
      // fromEntries: a name like `__proto__` stays an ordinary key.
      const files = Object.fromEntries(Object.entries(ptds).map(([name, value]) => [name, openPath(value, opened)]));
      return validateSources(openPath(pte, opened), files, { runtime, backends, deprecatedConstantBuffer });
    } finally {
      closeAll(opened);
    }
  }

  function validateSources(pte, ptds, options) {
    return withScope((scope, heap) => {
      const request = { pte: fileRequest(pte, kindOf(pte, 'pte'), scope, heap, 'pte', true), options };
      // fromEntries: a .ptd named `__proto__` stays an ordinary key (an
      // assignment would set the prototype and drop the file).
      request.ptds = Object.fromEntries(Object.entries(ptds).map(([name, value]) => {
        const what = `ptds[${JSON.stringify(name)}]`;
        return [name, fileRequest(value, kindOf(value, what), scope, heap, what, true)];
      }));
      sources.peekMisses = [];
      let out;
      try {
        out = call(() => module.validate(JSON.stringify(request), sources.host()));
        return uncheckedPadding(parseLossless(out.json()), request);
      } finally {
        out?.delete();
        sources.peekMisses = null;
      }
    });
  }

  // Padding validate could not peek at (a remote file's padding past the
  // prefetch budget, an opened Blob's past its head) is said, not passed
  // over in silence: one warning per file.
  function uncheckedPadding(report, request) {
    const files = [['pte', request.pte.file.src], ...Object.entries(request.ptds).map(([name, r]) => [name, r.file.src])];
    for (const [name, id] of files) {
      const misses = sources.peekMisses.filter((m) => m.id === id);
      if (!misses.length) continue;
      const bytes = misses.reduce((sum, m) => sum + m.size, 0);
      report.warnings.push({
        code: 'PADDING_NOT_CHECKED',
        message: `${misses.length} padding range(s) (from ${bytes} bytes, first at offset ${misses[0].offset}) were not checked: ` +
          'their bytes were not fetched or cannot be read synchronously',
        file: name, offset: misses[0].offset, path: null,
      });
    }
    return report;
  }

  // Repack a whole model (a .pte and the .ptd files it uses, + .ptd files to
  // merge) with a new layout; see src/encode/repack.h for what is checked and
  // refused, and src/encode/externalize.h for externalize's naming rule.
  function repack(pte, options = {}) {
    const checked = checkOptions(options, SPECS.repack, 'options');
    const {
      externalize = null, merge = [], mergeTag = 'model', dataSerializer = null, data = {}, allowMissingData = false,
    } = checked;
    const delivery = outputOptions(options, 'options', SPECS.repack);
    if (mergeTag === '') throw invalidArgument('options.mergeTag must not be empty (it names the merged .ptd file)');
    if (merge === null || typeof merge !== 'object') throw invalidArgument('options.merge must be an array or an object of .ptd files');
    if (dataSerializer !== null && !(dataSerializer instanceof FlatTensorSerializer)) {
      throw invalidArgument('options.dataSerializer must be a FlatTensorSerializer or null');
    }
    if (externalize !== null && typeof externalize !== 'boolean' && (typeof externalize !== 'object' || Array.isArray(externalize))) {
      throw invalidArgument('options.externalize must be true, false, null or an object');
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw invalidArgument("options.data must be an object {'model.ptd': file, ...}");
    }
    // Files opened here from paths are closed here once nothing refers to
    // them any more (contiguous outputs); Artifacts keep them open.
    const opened = [];
    const open = (p) => openPath(p, opened);
    // Contiguous outputs and refusals no longer need the opened files.
    let keepOpen = false;
    try {
      return withScope((scope, heap) => repackIn(scope, heap));
    } finally {
      if (!keepOpen) closeAll(opened);
    }

    function repackIn(scope, heap) {
      const request = {
        // Lenient heads: a malformed input reaches the core's validator, which
        // refuses it with its findings (INVALID_INPUT) instead of a bare parse error.
        pte: fileRequest(open(pte), 'pte', scope, heap, 'pte', true),
        config: pteConfigToCore(options ?? {}, false, 'options', SPECS.repack),
        data_serializer_config: { segment_alignment: dataSerializer?.config?.segmentAlignment ?? checked.dataSegmentAlignment ?? 128 },
        merge: (Array.isArray(merge) ? merge : Object.values(merge))
          .map((p, i) => fileRequest(open(p), 'ptd', scope, heap, `merge[${i}]`, true)),
        merge_tag: mergeTag,
        // The .ptd files the .pte uses; each is carried under its tag (the
        // name without a trailing .ptd).
        data: Object.entries(data).map(([name, p]) => ({
          name, ...fileRequest(open(p), 'ptd', scope, heap, `data['${name}']`, true),
        })),
        allow_missing_data: allowMissingData,
      };
      if (externalize) {
        const e = externalize === true ? {} : checkOptions(externalize, SPECS.externalize, 'options.externalize');
        request.externalize = {
          tag: e.tag ?? 'model',
          patterns: e.patterns ?? (e.names ? e.names : []),
          min_bytes: e.minBytes ?? 0,
          alignment: e.alignment ?? 16,
        };
      }
      const out = call(() => module.repack(JSON.stringify(request), sources.host()));
      try {
        const reply = JSON.parse(out.json());
        const [pteBytes, ...files] = deliver(out, delivery);
        const ptd = {};
        reply.ptd_tags.forEach((tag, i) => setOwn(ptd, tag, files[i]));
        keepOpen = delivery.output !== 'bytes';
        return {
          pte: pteBytes, ptd, moved: reply.moved, mergedEntries: reply.merged_entries,
          carriedEntries: reply.carried_entries, missingKeys: reply.missing_keys,
        };
      } finally {
        out.delete();
      }
    }
  }

  // A file on disk as an input (Node): read in ranges when needed, never
  // whole. Paths given to repack() are opened with this.
  function openFile(path) {
    if (!platform.openFile) throw new EtpackError('UNSUPPORTED', 'files by path are only available in Node; pass a Blob or bytes');
    if (typeof path !== 'string') throw invalidArgument('path must be a string');
    return platform.openFile(path);
  }

  // Prepares a Blob/File for the synchronous core: a .pte/.ptd gets its head
  // read (so it can be deserialized or repacked), other data its SHA-256
  // (so named-data dedup stays exact). Only those bytes are read now.
  async function openBlob(blob, options = {}) {
    if (!(typeof Blob !== 'undefined' && blob instanceof Blob)) throw invalidArgument('openBlob takes a Blob or File');
    options = checkOptions(options, SPECS.openBlob, 'options');
    const signal = checkSignal(options.signal);
    throwIfAborted(signal, 'openBlob');
    const entry = blobEntry(blob);
    // The first 64 KiB are kept whatever the file is (enough to say what is
    // wrong with one that is not a .pte/.ptd).
    const probe = await entry.read(0, Math.min(entry.size, 64 << 10));
    entry.head = probe;
    const magic = String.fromCharCode(probe[4] ?? 0, probe[5] ?? 0);
    const kind = entry.size >= 8 && magic === 'ET' ? 'pte' : entry.size >= 8 && magic === 'FT' ? 'ptd' : null;
    if (kind) {
      let headSize = guard(headSizeOf, null, [kind, probe.subarray(0, Math.min(probe.byteLength, kind === 'ptd' ? 56 : 64)), entry.size]);
      // Asked again while the answer is larger than the bytes read (a .pte without eh00).
      while (headSize > entry.head.byteLength) {
        throwIfAborted(signal, 'openBlob');
        entry.head = await entry.read(0, headSize);
        headSize = guard(headSizeOf, null, [kind, entry.head, entry.size]);
      }
      throwIfAborted(signal, 'openBlob');
    }
    if (options?.digest ?? !kind) {
      const hasher = platform.createHasher(module);
      for (let at = 0; at < entry.size; at += 8 << 20) {
        throwIfAborted(signal, 'openBlob');  // before each 8 MiB read: a long digest stops soon after an abort
        hasher.update(await entry.read(at, Math.min(8 << 20, entry.size - at)));
      }
      entry.digests = new Map([[`0:${entry.size}`, hasher.digest()]]);
    }
    return { size: entry.size, blob, kind, [SOURCE]: () => entry };
  }

  // The bytes of a .pte/.ptd the core parses, from its first bytes (a
  // header probe) and its size; lenient: a malformed head is not an error.
  function headSizeOf(kind, probe, size) {
    return withScope((scope, heap) => {
      const out = call(() => module.headSize(kind, JSON.stringify({ probe: heap.put(probe), size, lenient: true })));
      try {
        return JSON.parse(out.json()).head_size;
      } finally {
        out.delete();
      }
    });
  }

  // A remote file read by HTTP range requests (see url-source.mjs): its
  // head, and the padding validate peeks at, are fetched now; segment data
  // only when an output is written.
  function openUrl(url, options = {}) {
    checkOptions(options, SPECS.openUrl, 'options');
    return openUrlSource(url, options, {
      headSize: headSizeOf,
      paddingOf(source, kind) {
        try {
          const s = inspect(source, { kind });
          return [...s.segmentMap.filter((r) => r.kind === 'padding'), ...(s.paddingInSegments ?? [])]
            .map((r) => [Number(r.start), Number(r.end)]).sort((a, b) => a[0] - b[0]);
        } catch {
          return [];  // a head the core cannot lay out: validate reports it
        }
      },
      createHasher: () => platform.createHasher(module),
    });
  }

  const ready = () => lifetime.ready();

  // Async entry points: their rejections are coded too.
  function codedAsync(fn) {
    return async function codedCall(...args) {
      try {
        return await fn.apply(this, args);
      } catch (e) {
        throw coded(e);
      }
    };
  }

  const api = {
    version,
    repack: guarded(repack),
    openFile: guarded(openFile),
    openBlob: codedAsync(openBlob),
    openUrl: codedAsync(openUrl),
    withFetchedRanges,
    NamedDataStore,
    FlatTensorSerializer,
    EtpackError,
    serializeForExecutorch: guarded(serializeForExecutorch),
    serializePteBinary: guarded(serializePteBinary),
    deserializePteBinary: guarded(deserializePteBinary),
    programToJson: guarded(programToJson),
    inspect: guarded(inspect),
    validate: guarded(validate),
    ready,
    // Internals for the Node-only and streaming layers (`module` is the
    // current instance: it changes when the heap is reset).
    _internal: { get module() { return module; }, sources, withScope, fileRequest, call, parseReply, blobs, sha256Of, guard },
  };
  // diff, ptdFromWeights, exportWeights: built on the calls above.
  return Object.assign(api, createWeightsApi(api), createDiffApi(api));
}
