import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as zod3 } from "zod3";
import { z as zod3v4 } from "zod3/v4";
import { OptionError } from "../errors/errors.js";
import { fieldsFromZod } from "./zod-schema.js";

describe("zod schemas as Sluice schemas", () => {
  it("are read from any copy of zod 4, by its internals rather than instanceof", () => {
    const expected = [
      { name: "page", type: "string", nullable: false },
      { name: "ms", type: "int64", nullable: true },
    ];
    expect(fieldsFromZod(z.object({ page: z.string(), ms: z.int().optional() }))).toEqual(expected);
    // zod 3.25 ships zod 4 as "zod/v4": another copy of zod 4's classes, accepted alike.
    expect(fieldsFromZod(zod3v4.object({ page: zod3v4.string(), ms: zod3v4.int().optional() }) as never)).toEqual(expected);
  });

  it("read z.instanceof(Uint8Array) (or of Buffer) as a binary column, and refuse other custom types", () => {
    expect(fieldsFromZod(z.object({ payload: z.instanceof(Uint8Array), raw: z.instanceof(Buffer).nullable() }))).toEqual([
      { name: "payload", type: "binary", nullable: false },
      { name: "raw", type: "binary", nullable: true },
    ]);
    expect(() => fieldsFromZod(z.object({ payload: z.custom<Uint8Array>() }))).toThrow(
      'schema field "payload": a custom zod type has no column type; for bytes declare z.instanceof(Uint8Array)',
    );
    expect(() => fieldsFromZod(z.object({ when: z.instanceof(Date) }))).toThrow(OptionError);
  });

  it("refuse a zod 3 schema, saying how to get a zod 4 one", () => {
    const legacy = zod3.object({ page: zod3.string() }) as never;
    expect(() => fieldsFromZod(legacy)).toThrow(OptionError);
    expect(() => fieldsFromZod(legacy)).toThrow(
      'schema: this is a zod 3 schema, and Sluice reads zod 4 schemas: install zod 4 (npm install zod@^4) and import { z } from "zod", or with zod 3.25 import { z } from "zod/v4"',
    );
  });

  it("refuse what is not an object schema", () => {
    expect(() => fieldsFromZod(z.string() as never)).toThrow("schema: expected a zod object schema such as z.object({ word: z.string() })");
    expect(() => fieldsFromZod({ page: "string" } as never)).toThrow("schema: expected a zod object schema");
  });
});
