import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Checkpoint } from "../checkpoint/checkpoint.js";
import { AnalysisError } from "../errors/errors.js";
import type { LogicalPlan } from "../plan/logical.js";
import { checkStreamingQuery } from "../plan/unsupported-operations.js";
import { statefulOperators, type PhysicalPlan } from "../planner/physical.js";
import { planPhysical } from "../planner/planner.js";
import { describeSource, streamingRefusal } from "../sources/source-kinds.js";
import { openStreamSource } from "../sources/source-runtimes.js";
import type { StateStoreProvider } from "../state/state-store.js";
import { createSink } from "./create-sink.js";
import type { EngineContext } from "./engine-context.js";
import { MicroBatchExecution } from "./micro-batch-execution.js";
import { buildStaticTables } from "./static-execution.js";
import { StreamingQuery } from "./streaming-query.js";
import type { WriterConfig } from "./writer-config.js";

/** Names the plan's stateful operators in checkpoint metadata, so state is never read by another kind. */
export function statefulNames(plan: PhysicalPlan): string[] {
  return statefulOperators(plan).map((op) => {
    switch (op.op) {
      case "deduplicate":
        return `deduplicate(${op.keyColumns.join(",")})`;
      case "finalAggregate":
      case "sessionMerge":
        return `aggregate(${op.spec.keyFields.map((f) => f.name).join(",")};${op.spec.aggs.map((a) => a.fn).join(",")})`;
    }
  });
}

/**
 * Starts a streaming query (Spark's DataStreamWriter.start): checks the plan against the output
 * mode, creates the sink, and launches a run that claims the checkpoint, creates the sources,
 * opens the state and drives the micro-batch loop.
 */
export function startStream(engine: EngineContext, stateStores: (checkpoint: string) => StateStoreProvider, plan: LogicalPlan, config: WriterConfig): StreamingQuery {
  const physical = planPhysical(plan);
  checkStreamingQuery(physical, config.outputMode);
  for (const p of physical.inputs) {
    const refusal = streamingRefusal(p.source, config.trigger);
    if (refusal !== null) throw new AnalysisError(refusal);
  }
  engine.streams.reserveName(config.queryName);
  const sink = createSink(engine, config, physical);
  const checkpointDir = config.checkpointLocation ?? path.join(os.tmpdir(), "sluice-checkpoints", randomUUID());
  const temporary = config.checkpointLocation === null;

  const query = new StreamingQuery(
    randomUUID(),
    config.queryName,
    engine.streams.bus,
    async (q) => {
      const checkpoint = new Checkpoint(checkpointDir);
      const meta = await checkpoint.claim({ sources: physical.inputs.map((p) => describeSource(p.source)), stateful: statefulNames(physical) }, q.id);
      const staticTables = await buildStaticTables(engine, physical);
      const sources = physical.inputs.map((p, i) =>
        openStreamSource(p.source, { memoryStream: (id) => engine.memoryStream(id), sourceDir: checkpoint.sourceDir(i) }),
      );
      const execution = new MicroBatchExecution({
        id: meta.id,
        runId: q.runId,
        name: config.queryName,
        plan: physical,
        sources,
        sink,
        outputMode: config.outputMode,
        trigger: config.trigger,
        checkpoint,
        pool: engine.pool,
        stateStores: stateStores(path.resolve(checkpointDir)),
        staticTables,
        onProgress: (p) => q.recordProgress(p),
        onIdle: () => q.recordIdle(),
      });
      return { execution, id: meta.id, done: execution.run() };
    },
    async () => {
      if (temporary) await fs.rm(checkpointDir, { recursive: true, force: true });
    },
  );
  engine.streams.register(query);
  return query;
}
