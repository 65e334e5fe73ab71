package io.wheeltimer.jdbc.internal.table;

/**
 * The statements of a database's life lock (a session-level lock, held while the instance lives).
 * {@code take}, {@code release} and {@code verify} have the instance id as their one parameter;
 * {@code take} returns whether it took the lock and the session's id, {@code verify} whether this
 * session holds it and the session's id, {@code session} the session's id alone. {@code kind} names
 * the lock and where it shows, for errors.
 */
public record LifeLockStatements(String take, String release, String verify, String session, String kind) {}
