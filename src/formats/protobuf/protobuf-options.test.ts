import { describe, expect, it } from "vitest";
import { OptionError } from "../../errors/errors.js";
import { protobufReadOptions } from "./protobuf-options.js";

describe("protobufReadOptions: Spark's from_protobuf options", () => {
  it("default to Spark's: FAILFAST, no default values emitted, enums as names, unsigned ints as signed", () => {
    expect(protobufReadOptions({ subscribe: "orders", "kafka.bootstrap.servers": "x" })).toEqual({
      mode: "FAILFAST",
      emitDefaultValues: false,
      enumsAsInts: false,
      upcastUnsignedInts: false,
    });
  });

  it("take text or typed values, names in any case", () => {
    expect(protobufReadOptions({ MODE: "permissive", "Emit.Default.Values": "TRUE", "enums.as.ints": true, "upcast.unsigned.ints": " false " })).toEqual({
      mode: "PERMISSIVE",
      emitDefaultValues: true,
      enumsAsInts: true,
      upcastUnsignedInts: false,
    });
    expect(protobufReadOptions({ "recursive.fields.max.depth": "-1", "convert.any.fields.to.json": "false" }).mode).toBe("FAILFAST");
  });

  it("refuse bad values and the options for types Sluice does not have, naming them", () => {
    expect(() => protobufReadOptions({ mode: "LENIENT", "enums.as.ints": "yes" })).toThrow(
      new OptionError(
        'from_protobuf options: option "mode": mode must be one of PERMISSIVE, DROPMALFORMED, FAILFAST (got "LENIENT"); option "enums.as.ints": enums.as.ints must be true or false (got "yes")',
      ),
    );
    expect(() => protobufReadOptions({ "recursive.fields.max.depth": 2 }, "kafka source")).toThrow(
      new OptionError(
        'kafka source: option "recursive.fields.max.depth": recursive.fields.max.depth is not supported: recursive messages would be nested struct columns, which Sluice does not have yet (got 2)',
      ),
    );
    expect(() => protobufReadOptions({ "convert.any.fields.to.json": "true" })).toThrow(/convert\.any\.fields\.to\.json is not supported/);
  });
});
