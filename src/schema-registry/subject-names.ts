import { z } from "zod";
import { validateOptions } from "../config/validate.js";
import { OptionError } from "../errors/errors.js";

/**
 * Confluent's subject name strategies: the subject under which a serializer registers (and looks up) the
 * schema of a topic's keys or values.
 *
 * - TopicNameStrategy (the default): `<topic>-key` / `<topic>-value`; one schema (and its evolution) per
 *   topic and part.
 * - RecordNameStrategy: the record's full name (`com.example.Order`); one record type may then live in
 *   many topics, and one topic may hold many record types.
 * - TopicRecordNameStrategy: `<topic>-<record full name>`; many record types per topic, each evolving
 *   on its own in each topic.
 *
 * They are chosen with Confluent's options `key.subject.name.strategy` and `value.subject.name.strategy`,
 * set to the Java class name (`io.confluent.kafka.serializers.subject.TopicNameStrategy`, as a Java
 * client's configuration has it) or its short name (`TopicNameStrategy`).
 */

export const SUBJECT_NAME_STRATEGIES = ["TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy"] as const;
export type SubjectNameStrategy = (typeof SUBJECT_NAME_STRATEGIES)[number];

/** The Java package of Confluent's strategies: their class names are this plus the short name. */
const STRATEGY_PACKAGE = "io.confluent.kafka.serializers.subject.";

const KEY_OPTION = "key.subject.name.strategy";
const VALUE_OPTION = "value.subject.name.strategy";

function strategyOption(option: string) {
  const accepted = `${SUBJECT_NAME_STRATEGIES.join(", ")} (or ${STRATEGY_PACKAGE}<one of those>)`;
  return z
    .string({ error: `${option} must be text: ${accepted}` })
    .transform((name, ctx) => {
      const trimmed = name.trim();
      const short = trimmed.startsWith(STRATEGY_PACKAGE) ? trimmed.slice(STRATEGY_PACKAGE.length) : trimmed;
      const strategy = SUBJECT_NAME_STRATEGIES.find((s) => s === short);
      if (strategy !== undefined) return strategy;
      ctx.addIssue({
        code: "custom",
        message: trimmed.includes(".")
          ? `${option} names a Java class Sluice cannot load; use one of Confluent's strategies: ${accepted}`
          : `${option} must be one of ${accepted}`,
      });
      return z.NEVER;
    })
    .default("TopicNameStrategy");
}

/** The two strategy options, to merge into the options of a source or sink that uses a registry. */
export const subjectNameOptions = {
  [KEY_OPTION]: strategyOption(KEY_OPTION),
  [VALUE_OPTION]: strategyOption(VALUE_OPTION),
} as const;

/** Other options may be there: this reads only the two strategy options. */
const strategiesShape = z.object(subjectNameOptions);

/** The key and value strategies named by `options` (TopicNameStrategy for each one not set). */
export function subjectNameStrategies(
  options: Readonly<Record<string, unknown>>,
  where = "schema registry options",
): { readonly key: SubjectNameStrategy; readonly value: SubjectNameStrategy } {
  const parsed = validateOptions(strategiesShape, options, where);
  return { key: parsed[KEY_OPTION], value: parsed[VALUE_OPTION] };
}

export interface SubjectOf {
  readonly topic: string;
  /** The subject of the topic's keys (true) or values (false). */
  readonly isKey: boolean;
  /**
   * The record's full name: an Avro record's namespace and name (`com.example.Order`), a Protobuf
   * message's package and name, a JSON schema's title. Needed by RecordNameStrategy and
   * TopicRecordNameStrategy only.
   */
  readonly recordName?: string;
}

/** The subject that `strategy` gives the key or value schema of a topic. */
export function subjectName(strategy: SubjectNameStrategy, of: SubjectOf): string {
  switch (strategy) {
    case "TopicNameStrategy":
      return `${of.topic}-${of.isKey ? "key" : "value"}`;
    case "RecordNameStrategy":
      return recordNameOf(strategy, of);
    case "TopicRecordNameStrategy":
      return `${of.topic}-${recordNameOf(strategy, of)}`;
    default: {
      const unknown: never = strategy;
      throw new OptionError(`unknown subject name strategy ${String(unknown)}`);
    }
  }
}

function recordNameOf(strategy: SubjectNameStrategy, of: SubjectOf): string {
  if (of.recordName !== undefined && of.recordName.trim() !== "") return of.recordName;
  const option = of.isKey ? KEY_OPTION : VALUE_OPTION;
  throw new OptionError(
    `${option} ${strategy} names the subject after the record's full name, but the ${of.isKey ? "key" : "value"} schema of topic "${of.topic}" ` +
      `has none (it is not a named record, message or titled JSON schema): use TopicNameStrategy for it`,
  );
}
