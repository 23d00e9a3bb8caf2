import { describe, expect, it } from "vitest";
import { OptionError } from "../../errors/errors.js";
import { channelUrl, parseConnectionString } from "./connection-string.js";

const env = { USER: "ana" };

describe("Spark Connect connection strings (sc://host:port/;param=value)", () => {
  it("defaults to port 15002, plaintext, the OS user and a new session", () => {
    const spec = parseConnectionString("sc://spark.example.com", env);
    expect(spec).toEqual({
      host: "spark.example.com",
      port: 15002,
      useSsl: false,
      token: null,
      userId: "ana",
      userAgent: "sluice",
      sessionId: null,
      headers: {},
      display: "sc://spark.example.com",
    });
    expect(channelUrl(spec)).toBe("http://spark.example.com:15002");
  });

  it("reads the port, use_ssl, user_id, user_agent and session_id; other parameters become gRPC metadata", () => {
    const spec = parseConnectionString("sc://10.0.0.5:443/;use_ssl=true;user_id=bob;user_agent=etl%2Fjob;session_id=8b1f5c1e-6f2a-4c43-9a8e-2f6d1c0b9e11;x-team=data", env);
    expect(spec).toMatchObject({
      host: "10.0.0.5",
      port: 443,
      useSsl: true,
      userId: "bob",
      userAgent: "etl/job",
      sessionId: "8b1f5c1e-6f2a-4c43-9a8e-2f6d1c0b9e11",
      headers: { "x-team": "data" },
    });
    expect(channelUrl(spec)).toBe("https://10.0.0.5:443");
  });

  it("a token implies TLS, except to this machine, and never shows in messages", () => {
    expect(parseConnectionString("sc://spark.example.com/;token=s3cret", env)).toMatchObject({ token: "s3cret", useSsl: true, display: "sc://spark.example.com/;token=***" });
    expect(parseConnectionString("sc://localhost/;token=s3cret", env)).toMatchObject({ useSsl: false });
    expect(parseConnectionString("sc://127.0.0.1/;token=s3cret", env)).toMatchObject({ useSsl: false });
    expect(parseConnectionString("sc://spark.example.com/;token=s3cret;use_ssl=false", env)).toMatchObject({ useSsl: false });
  });

  it("takes the token from SPARK_CONNECT_AUTHENTICATE_TOKEN when the string has none", () => {
    expect(parseConnectionString("sc://spark.example.com", { SPARK_CONNECT_AUTHENTICATE_TOKEN: "t0k" }).token).toBe("t0k");
  });

  it("reads a bracketed IPv6 address", () => {
    expect(parseConnectionString("sc://[::1]:15010", env)).toMatchObject({ host: "[::1]", port: 15010 });
  });

  it.each([
    ["http://spark:15002", "it must start with sc://"],
    ["sc://", "it names no host"],
    ["sc://spark:99999", 'the port must be 1 to 65535, not "99999"'],
    ["sc://spark:", 'the port must be 1 to 65535, not ""'],
    ["sc://spark/path", "the path must be empty; parameters follow the host after /;"],
    ["sc://spark/;use_ssl=yes", 'use_ssl must be true or false, not "yes"'],
    ["sc://spark/;session_id=abc", 'session_id must be a UUID (the server refuses others), not "abc"'],
    ["sc://spark/;user_id", 'parameter "user_id" must be name=value'],
    ["sc://spark/;user_id=a;user_id=b", "parameter user_id is given twice"],
    ["sc://spark/;token=", "token is empty"],
  ])("refuses %s: %s", (text, why) => {
    expect(() => parseConnectionString(text, env)).toThrow(OptionError);
    expect(() => parseConnectionString(text, env)).toThrow(`: ${why}. The form is sc://host[:port]/;param=value;...`);
  });

  it("hides a token in the message of a string it refuses", () => {
    expect(() => parseConnectionString("sc://spark/;token=s3cret;use_ssl=maybe", env)).toThrow('remote: "sc://spark/;token=***;use_ssl=maybe" is not a Spark Connect connection string');
  });
});
