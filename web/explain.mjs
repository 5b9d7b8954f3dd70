// Plain words for the codes of validate's findings and of errors (by code or
// keyword; the message says the specifics): the validator shows them under
// each finding, the packager under a refusal's findings and its error.
const EXPLAIN = [
  [/^MALFORMED_FILE$|^NOT_A_PTE|^UNKNOWN_FILE/, 'The file is not a .pte or .ptd the core can read: another kind of file, or its header or metadata is damaged.'],
  [/^INVALID_(INPUT|OUTPUT)$/, 'The validator found errors in the files (listed with their own explanations): nothing was written.'],
  [/^OUTPUT_EXISTS|^OUTPUT_IS_INPUT|^INVALID_TAG$/, 'An output would replace a file or use a name that is not allowed: choose another output name or tag.'],
  [/^PADDING_NOT_CHECKED$/, 'Padding past what was read (a remote file\'s head and prefetched padding, or a large file opened by slices) was not checked: the rest of the report stands.'],
  [/^CONSTANT_SEGMENT_NO_PLACEHOLDER$/, 'The file lacks the constant segment placeholder: the runtime\'s default CMake build refuses it (InvalidProgram); builds with the deprecated constant_buffer path load it. `executorch-pack repack` rewrites it loadably.'],
  [/^(PADDING_(AFTER|BEFORE)_SEGMENT|SLICE_PADDING)_NOT_ZERO$/, 'Bytes that should be zero padding hold data: a segment\'s size was cut or an offset moved, so the runtime would silently hand out truncated or other bytes.'],
  [/^SEGMENT_BASE_MOVED$/, 'The segment base was moved: the runtime would read every constant and delegate blob from the wrong place.'],
  [/^BUNDLE_/, 'A test case of the bundled program (.bpte) does not fit its method: the runtime\'s bundled-program checks would refuse it, read past its values or compare the wrong bytes. The message names the suite, case and value.'],
  [/^FEATURE_TOO_NEW$/, 'The file uses a feature the target ExecuTorch release cannot load.'],
  [/^BACKEND_NOT_LISTED$/, 'A delegate needs a backend the target runtime does not link: load_method would fail.'],
  [/^METHOD_ALLOCATOR_TOO_SMALL$/, 'A method needs more bytes of the method allocator than the pool given: load_method would fail (MemoryAllocationFailed) or crash.'],
  [/^(PLANNED_(TENSOR_PAST_BUFFER|MEMORY_ID_INVALID|BUFFER_SIZE_NEGATIVE)|(INT|OPTIONAL_TENSOR|TENSOR)_LIST_ITEM_INVALID|VALUE_NULL|TENSOR_DYNAMISM_UNSUPPORTED|TENSOR_SIZES_OVERFLOW|DELEGATE_SEGMENT_WITHOUT_SEGMENTS)$/, 'The runtime refuses this when the method loads (load_method): the message names the value and the runtime error.'],
  [/^TENSOR_NAME_SHARED$/, 'One name is used by tensors of different shapes or dtypes: the runtime resolves an external name by the first tensor that uses it, so the others fail to load ("Dim mismatch") or read the wrong layout; weights imports refuse such names.'],
  [/^CONSTANT_OFFSET_MOVED$/, 'A constant\'s offset was moved: the runtime would silently hand that tensor other bytes.'],
  [/^HEADER_(SIZE_LARGER|LENGTH_UNUSUAL)$/, 'A header field is larger than needed; the runtime reads past it and loads the same bytes. Odd, not fatal.'],
  [/^PTD_OLD_LAYOUT$/, 'The .ptd was written in the FlatTensor layout of ExecuTorch 0.6, which newer runtimes misread.'],
  [/^(VALUE|OPERATOR|INSTRUCTION|TENSOR_DATA)_INDEX_OUT_OF_RANGE$/, 'An index in the program (a value, operator or instruction) points past its list: the runtime would refuse the method or read out of bounds.'],
  [/^PADDING/, 'Padding between regions holds non-zero bytes or is far larger than any alignment needs: the file loads, but something wrote bytes where only zeros belong.'],
  [/^TRAILING_BYTES$/, 'Bytes after the data the header declares: nothing reads them; the file may have been appended to or written twice.'],
  [/^TENSOR_(SIZES|DIM_ORDER|SCALAR_TYPE|STORAGE)/, 'A tensor\'s metadata (sizes, dim order, dtype or storage offset) is not something the runtime accepts.'],
  [/SIZE|RANGE|BOUNDS|TRUNC|SHORT/, 'A size or offset points outside the file: the file is probably truncated or was written incompletely.'],
  [/HEADER|MAGIC|IDENTIFIER/, 'The file does not start with a valid ExecuTorch header; it may not be a .pte/.ptd, or its first bytes are damaged.'],
  [/FLATBUFFER|VERIFY|TABLE|VTABLE/, 'The program metadata (flatbuffer) is malformed and would be rejected by the runtime.'],
  [/SEGMENT/, 'A data segment is misplaced, overlapping or missing.'],
  [/ALIGN/, 'Data is not aligned as the runtime expects; it may load slowly or fail on some targets.'],
  [/EXTERNAL|NAMED|PTD|KEY/, 'A tensor or named-data entry refers to data in a .ptd file that is missing or does not match.'],
  [/CONSTANT/, 'Constant tensor data is inconsistent with the program.'],
  [/DELEGATE/, 'A delegate (backend) blob is missing or inconsistent.'],
];
export const explain = (code) => EXPLAIN.find(([re]) => re.test(code))?.[1] ?? 'The core found a defect here; see the message for the field and bound.';
