/**
 * protobufjs, loaded on first use: `import "sluice"` loads none of it, so programs (and workers)
 * that never read Protobuf do not pay for it. Only schema parsing needs it (proto-schema.ts):
 * decoding and encoding run on Sluice's own descriptors, without the library.
 */

// Brings in the type declarations of `Root.fromDescriptor`, which the extension adds at run time.
import type {} from "protobufjs/ext/descriptor.js";

export type Protobufjs = typeof import("protobufjs");

let loading: Promise<Protobufjs> | null = null;
let descriptors: Promise<Protobufjs> | null = null;

export function loadProtobufjs(): Promise<Protobufjs> {
  // A CommonJS module: its exports are the default export of the ES module namespace.
  loading ??= import("protobufjs").then((m) => m.default);
  return loading;
}

/** protobufjs with its descriptor extension, which adds `Root.fromDescriptor` (FileDescriptorSet input). */
export function loadProtobufjsDescriptors(): Promise<Protobufjs> {
  descriptors ??= Promise.all([loadProtobufjs(), import("protobufjs/ext/descriptor.js")]).then(([protobufjs]) => protobufjs);
  return descriptors;
}
