import type { PhysicalPlan } from "../planner/physical.js";
import { ConsoleSink } from "../sinks/console-sink.js";
import { FileSink } from "../sinks/file/file-sink.js";
import { ForeachBatchSink } from "../sinks/foreach-batch-sink.js";
import { KafkaSink } from "../sinks/kafka-sink.js";
import type { Sink } from "../sinks/sink.js";
import type { EngineContext } from "./engine-context.js";
import type { WriterConfig } from "./writer-config.js";

/** The sink a validated `writeStream` configuration names, checked against the query's output. */
export function createSink(engine: EngineContext, config: WriterConfig, plan: PhysicalPlan): Sink {
  switch (config.sink.kind) {
    case "console":
      // The table goes to stdout with the progress bar (on stderr, often the same terminal) erased meanwhile.
      return new ConsoleSink({ numRows: config.sink.numRows, truncate: config.sink.truncate }, (text) =>
        engine.consoleProgress.aside(() => process.stdout.write(text)),
      );
    case "memory":
      return engine.memorySink(config.queryName!, plan.outputFields);
    case "kafka":
      KafkaSink.checkSchema(plan.outputFields, config.sink.topic);
      return new KafkaSink(config.sink);
    case "foreachBatch":
      return new ForeachBatchSink(config.sink.fn);
    case "file":
      return new FileSink(config.sink, plan.outputFields);
  }
}
