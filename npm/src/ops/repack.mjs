// repack(): a whole model (a .pte and the .ptd files it uses, + .ptd files
// to merge) with a new layout; see src/encode/repack.h for what is checked
// and refused, and src/encode/externalize.h for externalize's naming rule.
// Only the heads of the inputs are read; segments are streamed into the
// outputs.
import { invalidArgument } from '../errors.mjs';
import { SPECS, checkOptions } from '../options.mjs';
import { encodeRequest, pteConfigToCore, replyJson, setOwn } from '../marshal.mjs';
import { closeAll, fileRequest, openPath } from '../files-in.mjs';
import { deliver, outputOptions } from '../outputs.mjs';
import { dataFileEntries } from '../data-files.mjs';

export function repack(core, pte, options = {}) {
  const checked = checkOptions(options, SPECS.repack, 'options');
  const {
    externalize = null, merge = [], mergeTag = 'model', dataSerializer = null, data = {}, allowMissingData = false,
  } = checked;
  const delivery = outputOptions(options, 'options', SPECS.repack);
  if (mergeTag === '') throw invalidArgument('options.mergeTag must not be empty (it names the merged .ptd file)');
  if (merge === null || typeof merge !== 'object') throw invalidArgument('options.merge must be an array or an object of .ptd files');
  if (dataSerializer !== null && !(dataSerializer instanceof core.classes.FlatTensorSerializer)) {
    throw invalidArgument('options.dataSerializer must be a FlatTensorSerializer or null');
  }
  if (externalize !== null && typeof externalize !== 'boolean' && (typeof externalize !== 'object' || Array.isArray(externalize))) {
    throw invalidArgument('options.externalize must be true, false, null or an object');
  }
  if (data === null || typeof data !== 'object') {
    throw invalidArgument("options.data must be an array of .ptd files or a record {'model.ptd': file, ...}");
  }
  // An array names each file by its own name (its tag: the name without .ptd).
  const dataFiles = dataFileEntries(data, 'options.data', { named: true });
  // Files opened here from paths are closed here once nothing refers to
  // them any more (contiguous outputs and refusals); Artifacts keep them open.
  const opened = [];
  const open = (p) => openPath(core, p, opened);
  let keepOpen = false;
  try {
    return core.withScope((scope, heap) => {
      const file = (p, kind, what) => fileRequest(core, open(p), kind, scope, heap, what, true);
      const request = {
        // Lenient heads: a malformed input reaches the core's validator, which
        // refuses it with its findings (INVALID_INPUT) instead of a bare parse error.
        pte: file(pte, 'pte', 'pte'),
        // Layout choices not given stay null: the core keeps the input's
        // (delegates where they are, its segment alignment).
        config: pteConfigToCore(options ?? {}, null, 'options', SPECS.repack, null),
        data_serializer_config: { segment_alignment: dataSerializer?.config?.segmentAlignment ?? checked.dataSegmentAlignment ?? 128 },
        merge: (Array.isArray(merge) ? merge : Object.values(merge)).map((p, i) => file(p, 'ptd', `merge[${i}]`)),
        merge_tag: mergeTag,
        // The .ptd files the .pte uses; each is carried under its tag (the
        // name without a trailing .ptd).
        data: dataFiles.map(([name, p]) => ({ name, ...file(p, 'ptd', `data['${name}']`) })),
        allow_missing_data: allowMissingData,
      };
      if (externalize) request.externalize = externalizeRequest(externalize);
      return core.run(() => core.module.repack(encodeRequest(request), core.host()), (out) => {
        const reply = replyJson(out);
        const [pteBytes, ...files] = deliver(core, out, delivery);
        const ptd = {};
        reply.ptd_tags.forEach((tag, i) => setOwn(ptd, tag, files[i]));
        keepOpen = delivery.output !== 'bytes';
        return {
          pte: pteBytes, ptd, moved: reply.moved, mergedEntries: reply.merged_entries,
          carriedEntries: reply.carried_entries, missingKeys: reply.missing_keys,
          delegates: {
            inSegments: reply.delegates.in_segments, inline: reply.delegates.inline,
            movedToSegments: reply.delegates.moved_to_segments, movedInline: reply.delegates.moved_inline,
          },
          segmentAlignment: reply.segment_alignment, segmentAlignmentKept: reply.segment_alignment_kept,
        };
      });
    });
  } finally {
    if (!keepOpen) closeAll(opened);
  }
}

function externalizeRequest(externalize) {
  const e = externalize === true ? {} : checkOptions(externalize, SPECS.externalize, 'options.externalize');
  return {
    tag: e.tag ?? 'model',
    patterns: e.patterns ?? (e.names ? e.names : []),
    min_bytes: e.minBytes ?? 0,
    alignment: e.alignment ?? 16,
  };
}
