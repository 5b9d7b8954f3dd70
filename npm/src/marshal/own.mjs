// Sets `key` as an own, enumerable data property whatever the key is:
// `obj[key] = v` with key "__proto__" would replace the prototype instead.
// Maps keyed by names from a file or a caller (namedData, pteData,
// externalData, ptd) are ordinary objects built with this, so every key is
// an own property and no prototype ever changes.
export function setOwn(obj, key, value) {
  // Object.prototype's only accessor is __proto__: any other key assigned
  // on an ordinary object becomes an own data property (and is faster).
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
  return obj;
}
