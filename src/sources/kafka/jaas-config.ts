import { OptionError } from "../../errors/errors.js";

/**
 * The Java client's `sasl.jaas.config` value: one login module entry,
 *
 *   org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3cr3t";
 *
 * that is a class name, a control flag and `key=value` options, ended by a semicolon. Values are
 * double-quoted (with backslash escapes) or bare words. Sluice reads the options the way the Java
 * client does, so a line copied from a hosted Kafka's connection settings works unchanged.
 * The text holds a password: no error here quotes it, only the position where it went wrong.
 */

export interface JaasEntry {
  readonly loginModule: string;
  readonly flag: "required" | "requisite" | "sufficient" | "optional";
  readonly options: Readonly<Record<string, string>>;
}

const FLAGS = new Set(["required", "requisite", "sufficient", "optional"]);

export function parseJaasConfig(text: string, option = "kafka.sasl.jaas.config"): JaasEntry {
  let i = 0;
  const fail = (what: string): never => {
    throw new OptionError(`${option}: ${what} at character ${i + 1}; expected <LoginModule class> required key="value" ... ;`);
  };
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const word = (): string => {
    const start = i;
    while (i < text.length && /[^\s=;"]/.test(text[i]!)) i++;
    return text.slice(start, i);
  };
  const quoted = (): string => {
    i++; // opening quote
    let out = "";
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\" && i + 1 < text.length) i++;
      out += text[i++];
    }
    if (i >= text.length) fail("a quoted value is not closed");
    i++; // closing quote
    return out;
  };

  skipSpace();
  const loginModule = word();
  if (!loginModule) fail("no login module class");
  skipSpace();
  const flag = word();
  if (!FLAGS.has(flag)) fail(`the control flag must be required, requisite, sufficient or optional`);
  const options: Record<string, string> = {};
  for (;;) {
    skipSpace();
    if (i >= text.length) fail("the entry does not end with ';'");
    if (text[i] === ";") break;
    const key = word();
    if (!key) fail("an option name is missing");
    skipSpace();
    if (text[i] !== "=") fail(`option ${key} has no '='`);
    i++;
    skipSpace();
    const value = text[i] === '"' ? quoted() : word();
    options[key] = value;
  }
  i++;
  skipSpace();
  if (i < text.length) fail("only one login module entry is supported; text follows the ';'");
  return { loginModule, flag: flag as JaasEntry["flag"], options };
}
