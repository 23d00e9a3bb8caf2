/**
 * Sluice plans and expressions as Spark Connect messages, and Spark's Arrow results back as
 * Sluice batches: the translation a remote session (`new Session({ remote: "sc://..." })`) sends
 * and reads, free of any transport.
 */
export { assertRunsRemotely, compileRelation } from "./compile-relation.js";
export { compileExpression, type ExprScope } from "./compile-expression.js";
export { type CompileContext, REMOTE_TABLE_PREFIX } from "./compile-source.js";
export { batchFromSparkArrow } from "./spark-arrow-batch.js";
export { sparkArrowStream } from "./local-relation.js";
export { sparkDataType, sparkDdl, sparkDdlOfZod, sparkTypeName } from "./spark-types.js";
export { REMOTE_SESSION_CONF } from "./session-conf.js";
