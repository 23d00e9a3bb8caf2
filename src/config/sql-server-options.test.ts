import { describe, expect, it } from "vitest";
import { OptionError } from "../errors/errors.js";
import { isLoopback, sqlServerOptionsSchema, sqlServerSettings, type SqlServerOptions } from "./sql-server-options.js";
import { validateOptions } from "./validate.js";

const settings = (o: SqlServerOptions) => sqlServerSettings(validateOptions(sqlServerOptionsSchema, o, "serveSql"));
const message = (o: unknown) => {
  try {
    validateOptions(sqlServerOptionsSchema, o, "serveSql");
  } catch (e) {
    if (e instanceof OptionError) return e.message;
  }
  throw new Error("options accepted");
};

describe("serveSql options", () => {
  it("serves on loopback port 5432 without a password by default", () => {
    expect(settings({})).toEqual({
      port: 5432,
      host: "127.0.0.1",
      auth: "trust",
      users: new Map(),
      authenticationTimeoutMs: 60_000,
      statementTimeoutMs: 0,
      maxConnections: 100,
    });
  });

  it("uses SCRAM-SHA-256 once a password is given, for user sluice unless named", () => {
    const s = settings({ password: "pw", port: 0, statementTimeout: "2 seconds" });
    expect([s.auth, [...s.users], s.port, s.statementTimeoutMs]).toEqual(["scram-sha-256", [["sluice", "pw"]], 0, 2000]);
    expect([...settings({ users: { ana: "a", bo: "b" }, auth: "password" }).users]).toEqual([["ana", "a"], ["bo", "b"]]);
  });

  it("refuses a host other machines can reach without a password, naming the option", () => {
    expect(message({ host: "0.0.0.0" })).toBe(
      'serveSql: option "password": host "0.0.0.0" is reachable from other machines, so the server needs a password: give password (and user) or users; clients then authenticate with SCRAM-SHA-256. Only a loopback host (127.0.0.1, ::1, localhost) may serve without one',
    );
    expect(settings({ host: "0.0.0.0", password: "pw" }).auth).toBe("scram-sha-256");
  });

  it("refuses contradictory authentication settings", () => {
    expect(message({ auth: "trust", password: "pw" })).toContain('option "auth": auth "trust" asks for no password, but one is given');
    expect(message({ auth: "scram-sha-256" })).toBe('serveSql: option "password": auth "scram-sha-256" needs a password: give password (and user) or users');
    expect(message({ users: { a: "b" }, password: "pw" })).toContain('option "users": give either users (name -> password) or user and password, not both');
    expect(message({ port: 70000 })).toBe('serveSql: option "port": port must be 0 (any free port) to 65535 (got 70000)');
  });

  it("tells loopback addresses from others", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"].map(isLoopback)).toEqual([true, true, true, true, true, true]);
    expect(["0.0.0.0", "::", "10.0.0.1", "example.com"].map(isLoopback)).toEqual([false, false, false, false]);
  });
});
