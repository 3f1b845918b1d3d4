// Where a converter keeps what the library's message type has no field for, so that the way
// back restores it: providerOptions.compactcheck on a message or a part. Libraries carry
// providerOptions through untouched (they are passed on to the provider), and a library that
// rewrites a part rebuilds it from its own fields, which the way back reads first.
export const KEY = "compactcheck";

export function without(object, keys) {
  const rest = {};
  for (const [key, value] of Object.entries(object)) if (!keys.includes(key)) rest[key] = value;
  return rest;
}

export function stashed(holder) {
  return (holder && holder.providerOptions && holder.providerOptions[KEY]) || {};
}

export function withStash(holder, data, providerOptions = {}) {
  return { ...holder, providerOptions: { ...providerOptions, [KEY]: data } };
}

/** Tool arguments as the input object the libraries want, and the text when it differs. */
export function parseArguments(text) {
  try {
    const input = JSON.parse(text);
    if (input !== null && typeof input === "object" && !Array.isArray(input)) {
      return JSON.stringify(input) === text ? { input } : { input, text };
    }
  } catch {
    // not JSON: handed over as a string, restored as it came
  }
  return { input: text, text };
}

export function argumentsText(part) {
  const stash = stashed(part);
  if (stash.arguments !== undefined && JSON.stringify(parseArguments(stash.arguments).input) === JSON.stringify(part.input)) {
    return stash.arguments;
  }
  return typeof part.input === "string" ? part.input : JSON.stringify(part.input);
}
