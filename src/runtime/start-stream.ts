import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Checkpoint } from "../checkpoint/checkpoint.js";
import { CheckpointLock } from "../checkpoint/checkpoint-lock.js";
import { NO_DATA_MICRO_BATCHES, REAL_TIME_MIN_BATCH_DURATION, STATEFUL_OPERATOR_CHECK_CORRECTNESS } from "../config/sql-conf.js";
import { AnalysisError } from "../errors/errors.js";
import { explainPlan } from "../plan/explain.js";
import type { LogicalPlan } from "../plan/logical.js";
import { checkRealTimeQuery } from "../plan/real-time-mode.js";
import { checkStreamingQuery } from "../plan/unsupported-operations.js";
import { statefulOperators, type PhysicalPlan } from "../planner/physical.js";
import { planPhysical } from "../planner/planner.js";
import { operatorStateSchemas } from "../planner/state-schemas.js";
import { describeSource, streamingRefusal } from "../sources/source-kinds.js";
import { openStreamSource } from "../sources/source-runtimes.js";
import { FileStateStoreProvider } from "../state/file-provider.js";
import { checkContinuation } from "./checkpoint-continuation.js";
import { createSink } from "./create-sink.js";
import { prepareQuery } from "./query-preparation.js";
import { checkRegistryDecoding } from "./registry-preparation.js";
import type { EngineContext } from "./engine-context.js";
import type { ExecutionDeps } from "./execution-deps.js";
import { MicroBatchExecution } from "./micro-batch-execution.js";
import { RealTimeExecution } from "./real-time-execution.js";
import { relayedConfOf } from "./relayed-conf.js";
import { buildStaticTables } from "./static-execution.js";
import { MicroBatchStreamingQuery, type StreamingQuery } from "./streaming-query.js";
import type { WriterConfig } from "./writer-config.js";
import type { RealTimeSinkSpec } from "../workers/protocol.js";

/**
 * Names the plan's stateful operators in checkpoint metadata, for people and for older Sluice
 * versions (which compare them); a restart is checked against the state schemas recorded beside.
 */
export function statefulNames(plan: PhysicalPlan): string[] {
  return statefulOperators(plan).map((op) => {
    switch (op.op) {
      case "deduplicate":
        return `deduplicate(${op.keyColumns.join(",")})`;
      case "finalAggregate":
      case "sessionMerge":
        return `aggregate(${op.spec.keyFields.map((f) => f.name).join(",")};${op.spec.aggs.map((a) => a.fn).join(",")})`;
      case "streamJoin":
        return `join(${op.joinType};${op.leftFields.map((f) => f.name).join(",")};${op.rightFields.map((f) => f.name).join(",")})`;
      case "transformWithState":
        return `transformWithState(${op.keyColumns.join(",")};${op.processor.module}#${op.processor.exportName})`;
    }
  });
}

/**
 * Starts a streaming query (Spark's DataStreamWriter.start). Before it returns it checks the plan
 * against the output mode, creates the sink, and claims the checkpoint: its metadata must be this
 * query's, and its lock is taken, so a second query on the same checkpoint (in this process or
 * another) is refused here. The run it launches creates the sources, opens the state and drives
 * the micro-batch loop; the lock is released when the run ends.
 */
export function startStream(engine: EngineContext, plan: LogicalPlan, config: WriterConfig): StreamingQuery {
  const physical = planPhysical(plan);
  // The session's settings as the query starts (Spark reads them then); the run's own come from its checkpoint.
  const relayedConf = relayedConfOf(engine.conf);
  const trigger = config.trigger;
  if (trigger.kind === "realTime") {
    checkRealTimeQuery(physical, {
      outputMode: config.outputMode,
      batchDurationMs: trigger.batchDurationMs,
      minBatchDurationMs: engine.conf[REAL_TIME_MIN_BATCH_DURATION],
      sink: { kind: config.sink.kind, transactional: config.sink.kind === "kafka" && config.sink.transactional !== null },
    });
  }
  checkStreamingQuery(physical, config.outputMode, { checkCorrectness: engine.conf[STATEFUL_OPERATOR_CHECK_CORRECTNESS] });
  checkRegistryDecoding(physical);
  for (const p of physical.inputs) {
    const refusal = streamingRefusal(p.source, config.trigger);
    if (refusal !== null) throw new AnalysisError(refusal);
  }
  const sink = createSink(engine, config, physical);
  const location = config.checkpointLocation ?? (engine.checkpointRoot === null ? null : path.join(engine.checkpointRoot, config.queryName ?? randomUUID()));
  if (sink.requiresCheckpoint && location === null) {
    throw new AnalysisError(
      `checkpointLocation must be specified through option("checkpointLocation", ...) or new Session({ checkpointLocation }): ` +
        `${sink.description} keeps its output beyond this process, and only the checkpoint can tell after a restart which batches it already wrote`,
    );
  }
  engine.streams.reserveName(config.queryName);
  // Memory and console sinks may run on a throwaway checkpoint, as in Spark.
  const temporary = location === null;
  const checkpointDir = path.resolve(location ?? path.join(os.tmpdir(), "sluice-checkpoints", randomUUID()));
  const checkpoint = new Checkpoint(checkpointDir);
  const sources = physical.inputs.map((p) => p.source);
  const wanted = { sources: sources.map(describeSource), stateful: statefulNames(physical), stateSchemas: operatorStateSchemas(physical) };
  const meta = checkpoint.claim(wanted, randomUUID(), (existing) => checkContinuation(existing, wanted, sources, checkpoint.metadataFile));
  const runId = randomUUID();
  const lock = CheckpointLock.acquire(checkpointDir, { queryId: meta.id, runId });

  const query = new MicroBatchStreamingQuery(
    meta.id,
    runId,
    config.queryName,
    engine.streams.bus,
    async (q) => {
      await prepareQuery(plan);
      const staticTables = await buildStaticTables(engine, physical);
      const sources = physical.inputs.map((p, i) =>
        openStreamSource(p.source, { memoryStream: (id) => engine.memoryStream(id), sourceDir: checkpoint.sourceDir(i) }),
      );
      const deps: ExecutionDeps = {
        id: meta.id,
        runId,
        name: config.queryName,
        plan: physical,
        sources,
        sink,
        outputMode: config.outputMode,
        trigger: config.trigger,
        noDataMicroBatches: engine.conf[NO_DATA_MICRO_BATCHES],
        relayedConf,
        checkpoint,
        lock,
        pool: engine.pool,
        // Durable state under the checkpoint: a run in a new process continues from the last commit.
        stateStores: new FileStateStoreProvider(checkpointDir, {
          minBatchesToRetain: engine.retention.minBatchesToRetain,
          minDeltasForSnapshot: engine.retention.minDeltasForSnapshot,
        }),
        minBatchesToRetain: engine.retention.minBatchesToRetain,
        staticTables,
        onProgress: (p) => q.recordProgress(p),
        onIdle: () => q.recordIdle(),
        clock: config.clock,
        consoleProgress: engine.consoleProgress,
      };
      if (trigger.kind === "realTime") {
        const execution = new RealTimeExecution({ ...deps, trigger, taskSink: realTimeTaskSink(config.sink) });
        return { execution, done: execution.run() };
      }
      const execution = new MicroBatchExecution(deps);
      return { execution, done: execution.run() };
    },
    async () => {
      lock.release();
      if (temporary) await fs.rm(checkpointDir, { recursive: true, force: true });
    },
    engine.stopTimeoutMs,
    { text: explainPlan(plan), sink: sink.describe() },
  );
  engine.streams.register(query);
  return query;
}

/**
 * Where real-time tasks send their output: Kafka is written by the tasks themselves, row batch by
 * row batch; the memory and console sinks get each batch's rows when it ends (as Spark's).
 */
function realTimeTaskSink(sink: WriterConfig["sink"]): RealTimeSinkSpec {
  if (sink.kind !== "kafka") return { kind: "collect" };
  return { kind: "kafka", options: { bootstrapServers: sink.bootstrapServers, topic: sink.topic, clientId: sink.clientId, security: sink.security } };
}
