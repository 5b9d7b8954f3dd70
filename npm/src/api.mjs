// The executorch-pack API over one instantiated wasm module. Names follow
// upstream's Python API (serialize_for_executorch -> serializeForExecutorch);
// programs keep upstream's snake_case JSON shape.
import { EtpackError, invalidArgument } from './errors.mjs';
import { toBytes, describe } from './bytes.mjs';
import { HeapCopies, Scope, Sources } from './sources.mjs';
import {
  assemble, blobs, call, entriesFromCore, entriesToCore, parseLossless, parseReply, programText, pteConfigToCore,
  storeOutputFromCore, storeOutputToCore, layoutToCore,
} from './marshal.mjs';

export function createApi(module, platform, version) {
  const sources = new Sources(module, platform);

  // Runs `body(scope, heap)` with per-call registrations released afterwards.
  function withScope(body) {
    const scope = new Scope(sources);
    const heap = new HeapCopies(module);
    try {
      return body(scope, heap);
    } finally {
      heap.free();
      scope.close();
    }
  }

  function takeCords(out) {
    const list = [];
    for (let i = 0; i < out.cordCount(); ++i) list.push(assemble(module, sources, out, i));
    return list;
  }

  // A file given as bytes: the head the core parses goes into the heap, the
  // rest is referenced where it is.
  function fileRequest(bytes, kind, scope, heap) {
    const probeLength = Math.min(bytes.byteLength, kind === 'ptd' ? 56 : 64);
    const probe = heap.put(bytes.subarray(0, probeLength));
    const out = call(() => module.headSize(kind, JSON.stringify({ probe, size: bytes.byteLength })));
    let headSize;
    try {
      headSize = JSON.parse(out.json()).head_size;
    } finally {
      out.delete();
    }
    return { head: heap.put(bytes.subarray(0, headSize)), file: scope.bytes(bytes) };
  }

  class NamedDataStore {
    #handle = new module.StoreHandle();
    #ids = [];  // sources the store's buffers refer to; held while it lives

    #run(fn) {
      const out = call(fn);
      out.delete();
    }

    addNamedData(key, data, options = {}) {
      if (typeof key !== 'string') throw invalidArgument(`key must be a string, got ${describe(key)}`);
      const { alignment = 1, externalTag = null, tensorLayout = null } = options ?? {};
      if (typeof alignment !== 'number' || !Number.isInteger(alignment)) throw invalidArgument('alignment must be an integer');
      if (externalTag !== null && typeof externalTag !== 'string') throw invalidArgument('externalTag must be a string or null');
      const bytes = toBytes(data, 'data');
      const id = sources.registerBytes(bytes);
      const layout = layoutToCore(tensorLayout, 'tensorLayout');
      try {
        this.#run(() => this.#handle.add(key, JSON.stringify({ src: id, size: bytes.byteLength }), alignment < 0 ? -1 : alignment,
          externalTag ?? '', externalTag !== null, layout ? JSON.stringify(layout) : '', sources.host()));
      } catch (e) {
        sources.release(id);
        throw e;
      }
      this.#ids.push(id);
    }

    mergeNamedDataStore(other) {
      const output = other instanceof NamedDataStore ? other.getNamedDataStoreOutput() : other;
      withScope((scope) => {
        const json = storeOutputToCore(output, scope, 'other');
        // Keep the merged buffers' sources alive with this store.
        this.#ids.push(...scope.ids);
        scope.ids = [];
        this.#run(() => this.#handle.merge(JSON.stringify(json), sources.host()));
      });
    }

    externalizePteData(maxDataBytes, tagPrefix) {
      if (typeof tagPrefix !== 'string') throw invalidArgument('tagPrefix must be a string');
      const cap = typeof maxDataBytes === 'bigint' ? Number(maxDataBytes) : maxDataBytes;
      if (typeof cap !== 'number' || !Number.isSafeInteger(cap) || cap <= 0) {
        throw invalidArgument(`external data shard cap must be a positive integer, received ${String(maxDataBytes)}`);
      }
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

    delete() {
      this.#handle.delete();
      for (const id of this.#ids) sources.release(id);
      this.#ids = [];
    }
  }

  class FlatTensorSerializer {
    constructor(config = {}) {
      const segmentAlignment = config?.segmentAlignment ?? 128;
      if (!Number.isSafeInteger(segmentAlignment) || segmentAlignment <= 0) {
        throw new EtpackError('INVALID_ALIGNMENT', `segmentAlignment must be a positive integer, got ${String(segmentAlignment)}`);
      }
      this.config = { segmentAlignment };
    }

    serialize(payload) {
      if (!payload || !Array.isArray(payload.buffers)) throw invalidArgument('payload must have a buffers array');
      return withScope((scope) => {
        const request = {
          buffers: payload.buffers.map((b, i) => scope.bytes(toBytes(b, `payload.buffers[${i}]`))),
          named_data: entriesToCore(payload.namedData ?? payload.named_data ?? {}, 'payload.namedData'),
          config: { segment_alignment: this.config.segmentAlignment },
        };
        const out = call(() => module.ptdSerialize(JSON.stringify(request), sources.host()));
        try {
          return assemble(module, sources, out, 0);
        } finally {
          out.delete();
        }
      });
    }

    deserialize(data) {
      const bytes = toBytes(data, 'data');
      return withScope((scope, heap) => {
        const out = call(() => module.ptdDeserialize(JSON.stringify(fileRequest(bytes, 'ptd', scope, heap)), sources.host()));
        try {
          const reply = parseReply(out.json(), blobs(module, sources, out));
          return { buffers: reply.buffers, namedData: entriesFromCore(reply.named_data) };
        } finally {
          out.delete();
        }
      });
    }
  }

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
      request.mutable_data = mutable.map((b, i) => scope.bytes(toBytes(b?.storage ?? b, `mutableData[${i}]`)));
    }
    const map = emitter.externalConstantMap ?? emitter.external_constant_map ?? {};
    if (map === null || typeof map !== 'object') throw invalidArgument('externalConstantMap must be an object');
    request.external_constant_map = map;
    const buffers = emitter.externalConstantBuffer ?? emitter.external_constant_buffer ?? [];
    if (!Array.isArray(buffers)) throw invalidArgument('externalConstantBuffer must be an array');
    request.external_constant_buffer = buffers.map((b, i) => scope.bytes(toBytes(b, `externalConstantBuffer[${i}]`)));
    return request;
  }

  function serializeForExecutorch(emitterOutput, config = {}, dataSerializer = undefined, namedDataStore = null) {
    if (!emitterOutput || typeof emitterOutput !== 'object') throw invalidArgument('emitterOutput must be an object');
    return withScope((scope) => {
      const request = emitterRequest(emitterOutput, scope);
      request.config = pteConfigToCore(config ?? {});
      request.store = storeRequest(namedDataStore, scope, 'namedDataStore');
      let serializeData;
      if (dataSerializer === undefined || dataSerializer === null) {
        request.data_serializer_config = { segment_alignment: 128 };
      } else if (dataSerializer instanceof FlatTensorSerializer) {
        request.data_serializer_config = { segment_alignment: dataSerializer.config.segmentAlignment };
      } else if (typeof dataSerializer.serialize === 'function') {
        request.custom_serializer = true;
        serializeData = (payloadJson) => {
          try {
            const payload = JSON.parse(payloadJson);
            const buffers = payload.buffers.map((ref) => (ref.src !== undefined
              ? sources.get(ref.src).view(ref.offset ?? 0, ref.size) ?? copyOut(ref)
              : module.HEAPU8.slice(ref.ptr >>> 0, (ref.ptr >>> 0) + ref.len)));
            const bytes = toBytes(dataSerializer.serialize({ buffers, namedData: entriesFromCore(payload.named_data) }), 'dataSerializer.serialize() result');
            return JSON.stringify(scope.bytes(bytes));
          } catch (e) {
            return JSON.stringify({ error: String(e?.message ?? e) });
          }
        };
      } else {
        throw invalidArgument('dataSerializer must be a FlatTensorSerializer or an object with serialize(payload)');
      }
      const out = call(() => module.serializeForExecutorch(programText(emitterOutput.program, scope), JSON.stringify(request),
        sources.host({ serializeData })));
      try {
        const tags = JSON.parse(out.json()).ptd_tags;
        const [pte, ...files] = takeCords(out);
        const ptd = {};
        tags.forEach((tag, i) => { ptd[tag] = files[i]; });
        return { pte, ptd };
      } finally {
        out.delete();
      }
    });
  }

  function copyOut(ref) {
    const copy = new Uint8Array(ref.size);
    sources.get(ref.src).copyTo(copy, 0, ref.offset ?? 0, ref.size);
    return copy;
  }

  function serializePteBinary(pteFile, config = {}) {
    if (!pteFile || typeof pteFile !== 'object') throw invalidArgument('serializePteBinary takes { program, mutableData, namedData }');
    return withScope((scope) => {
      const request = emitterRequest({ mutableData: pteFile.mutableData ?? pteFile.mutable_data ?? null }, scope);
      request.config = pteConfigToCore(config ?? {}, false);
      request.named_data = storeRequest(pteFile.namedData ?? pteFile.named_data ?? null, scope, 'namedData');
      const out = call(() => module.serializePteBinary(programText(pteFile.program, scope), JSON.stringify(request), sources.host()));
      try {
        return assemble(module, sources, out, 0);
      } finally {
        out.delete();
      }
    });
  }

  function deserializePteBinary(data) {
    const bytes = toBytes(data, 'data');
    return withScope((scope, heap) => {
      const out = call(() => module.deserializePteBinary(JSON.stringify(fileRequest(bytes, 'pte', scope, heap)), sources.host()));
      try {
        const reply = parseReply(out.json(), blobs(module, sources, out));
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
    return withScope((scope) => {
      const out = call(() => module.programToJson(programText(program, scope), sources.host()));
      try {
        return out.json();
      } finally {
        out.delete();
      }
    });
  }

  function inspect(data, options = {}) {
    const bytes = toBytes(data, 'data');
    const kind = options?.kind ?? (bytes.byteLength >= 8 && String.fromCharCode(...bytes.subarray(4, 6)) === 'FT' ? 'ptd' : 'pte');
    return withScope((scope, heap) => {
      const out = call(() => module.inspect(kind, JSON.stringify({ file: heap.put(bytes) })));
      try {
        return parseLossless(out.json());
      } finally {
        out.delete();
      }
    });
  }

  function validate(pte, ptds = {}) {
    const bytes = toBytes(pte, 'pte');
    if (ptds === null || typeof ptds !== 'object') throw invalidArgument('ptds must be an object {name: bytes}');
    return withScope((scope, heap) => {
      const request = { pte: heap.put(bytes), ptds: {} };
      for (const [name, value] of Object.entries(ptds)) request.ptds[name] = heap.put(toBytes(value, `ptds['${name}']`));
      const out = call(() => module.validate(JSON.stringify(request)));
      try {
        return parseLossless(out.json());
      } finally {
        out.delete();
      }
    });
  }

  // Repack a .pte (+ merge .ptd files) with a new layout; see
  // src/encode/repack.h for externalize's naming rule.
  function repack(pte, options = {}) {
    const bytes = toBytes(pte, 'pte');
    const { externalize = null, merge = [], mergeTag = 'model', dataSerializer = null } = options ?? {};
    return withScope((scope, heap) => {
      const request = {
        pte: fileRequest(bytes, 'pte', scope, heap),
        config: pteConfigToCore(options ?? {}, false),
        data_serializer_config: { segment_alignment: dataSerializer?.config?.segmentAlignment ?? options?.dataSegmentAlignment ?? 128 },
        merge: (Array.isArray(merge) ? merge : Object.values(merge)).map((p, i) => fileRequest(toBytes(p, `merge[${i}]`), 'ptd', scope, heap)),
        merge_tag: mergeTag,
      };
      if (externalize) {
        const e = externalize === true ? {} : externalize;
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
        const [pteBytes, ...files] = takeCords(out);
        const ptd = {};
        reply.ptd_tags.forEach((tag, i) => { ptd[tag] = files[i]; });
        return { pte: pteBytes, ptd, moved: reply.moved, mergedEntries: reply.merged_entries };
      } finally {
        out.delete();
      }
    });
  }

  return {
    version,
    repack,
    NamedDataStore,
    FlatTensorSerializer,
    EtpackError,
    serializeForExecutorch,
    serializePteBinary,
    deserializePteBinary,
    programToJson,
    inspect,
    validate,
    // Internals for the Node-only and streaming layers.
    _internal: { module, sources, withScope, fileRequest, call, parseReply, blobs, assemble },
  };
}
