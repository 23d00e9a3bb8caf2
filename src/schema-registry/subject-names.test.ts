import { describe, expect, it } from "vitest";
import { OptionError } from "../errors/errors.js";
import { subjectName, subjectNameStrategies } from "./subject-names.js";

describe("Confluent subject name strategies", () => {
  it("TopicNameStrategy: <topic>-key and <topic>-value", () => {
    expect(subjectName("TopicNameStrategy", { topic: "orders", isKey: true })).toBe("orders-key");
    expect(subjectName("TopicNameStrategy", { topic: "orders", isKey: false, recordName: "com.example.Order" })).toBe("orders-value");
  });

  it("RecordNameStrategy: the record's full name, whatever the topic", () => {
    expect(subjectName("RecordNameStrategy", { topic: "orders", isKey: false, recordName: "com.example.Order" })).toBe("com.example.Order");
    expect(subjectName("RecordNameStrategy", { topic: "refunds", isKey: true, recordName: "com.example.OrderKey" })).toBe("com.example.OrderKey");
  });

  it("TopicRecordNameStrategy: <topic>-<record full name>", () => {
    expect(subjectName("TopicRecordNameStrategy", { topic: "orders", isKey: false, recordName: "com.example.Order" })).toBe("orders-com.example.Order");
  });

  it("a strategy that needs the record's name fails for a schema without one", () => {
    expect(() => subjectName("RecordNameStrategy", { topic: "orders", isKey: false })).toThrow(
      new OptionError(
        'value.subject.name.strategy RecordNameStrategy names the subject after the record\'s full name, but the value schema of topic "orders" has none (it is not a named record, message or titled JSON schema): use TopicNameStrategy for it',
      ),
    );
    expect(() => subjectName("TopicRecordNameStrategy", { topic: "orders", isKey: true, recordName: " " })).toThrow(/^key\.subject\.name\.strategy TopicRecordNameStrategy names/);
  });
});

describe("key.subject.name.strategy and value.subject.name.strategy", () => {
  it("default to TopicNameStrategy, and ignore the other options", () => {
    expect(subjectNameStrategies({ "schema.registry.url": "http://x", subscribe: "orders" })).toEqual({ key: "TopicNameStrategy", value: "TopicNameStrategy" });
  });

  it("take Confluent's Java class names and their short names", () => {
    expect(
      subjectNameStrategies({
        "key.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy",
        "value.subject.name.strategy": " TopicRecordNameStrategy ",
      }),
    ).toEqual({ key: "RecordNameStrategy", value: "TopicRecordNameStrategy" });
    expect(subjectNameStrategies({ "value.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicNameStrategy" })).toEqual({
      key: "TopicNameStrategy",
      value: "TopicNameStrategy",
    });
  });

  it("refuse another class, a misspelt name and a value that is not text, naming the option and what it takes", () => {
    const accepted =
      "TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy (or io.confluent.kafka.serializers.subject.<one of those>)";
    expect(() => subjectNameStrategies({ "value.subject.name.strategy": "com.example.MyStrategy" }, "kafka source")).toThrow(
      new OptionError(
        `kafka source: option "value.subject.name.strategy": value.subject.name.strategy names a Java class Sluice cannot load; use one of Confluent's strategies: ${accepted} (got "com.example.MyStrategy")`,
      ),
    );
    expect(() => subjectNameStrategies({ "key.subject.name.strategy": "TopicName" }, "kafka source")).toThrow(
      new OptionError(`kafka source: option "key.subject.name.strategy": key.subject.name.strategy must be one of ${accepted} (got "TopicName")`),
    );
    expect(() => subjectNameStrategies({ "key.subject.name.strategy": 3 }, "kafka source")).toThrow(
      new OptionError(`kafka source: option "key.subject.name.strategy": key.subject.name.strategy must be text: ${accepted} (got 3)`),
    );
  });
});
