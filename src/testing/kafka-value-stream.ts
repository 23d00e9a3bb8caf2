// The Kafka source of a test topic read from its start with a record schema: what the value-format tests
// (JSON, Avro, Protobuf) read their topics with, the format and its options given by each test.
import type { z } from "zod";
import type { Session } from "../api/session.js";
import { kafkaBootstrap } from "./kafka.js";

export const kafkaValueStream = <Z extends z.ZodObject<any>>(session: Session, topic: string, schema: Z, options: Record<string, string | number | boolean>) =>
  session.readStream
    .format("kafka")
    .schema(schema)
    .option("kafka.bootstrap.servers", kafkaBootstrap())
    .option("subscribe", topic)
    .option("startingOffsets", "earliest")
    .options(options)
    .load();
