package io.wheeltimer.jdbc;

/**
 * The one logger of every part of a durable timer, named after {@link JdbcDurableTimer} (the name
 * users configure), so that no part reaches up to that class for it.
 */
final class TimerLog {

    static final System.Logger LOGGER = System.getLogger("io.wheeltimer.jdbc.JdbcDurableTimer");

    private TimerLog() {}
}
