// The imports of etpack-validate.wasm that its caller supplies (emcc
// --js-library: declared here so the link knows them; the CLI's
// npm/src/cli/validate-fast.mjs gives the functions).
mergeInto(LibraryManager.library, {
  etpack_host_read: function () {},  // src/bindings/validate_c_api.cpp
});
