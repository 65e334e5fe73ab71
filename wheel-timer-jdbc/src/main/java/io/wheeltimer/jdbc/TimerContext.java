package io.wheeltimer.jdbc;

import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What the parts of one {@link JdbcDurableTimer} share, handed to each in its constructor by
 * {@link TimerParts}: the settings as checked (their clock the one that judges deadlines), the table,
 * (opened at its first use), the transactions, the handlers by task, the listener, whether the timer runs, and the one throttled
 * log of failures to reach the database.
 *
 * @param databaseClock the database's clock as this instance reads it; null when the builder's clock judges
 */
record TimerContext(
        TimerSettings settings,
        LazyTable tableOnFirstUse,
        Transactions transactions,
        Map<String, DurableTimeoutHandler> handlers,
        DurableTimerListener listener,
        BooleanSupplier running,
        RepeatLog databaseTrouble,
        DatabaseClock databaseClock) {

    /** The table's statements, in the dialect of the database, found at the first use. */
    TimeoutTable table() {
        return tableOnFirstUse.get();
    }

    /** Whether the timer polls and fires. */
    boolean isRunning() {
        return running.getAsBoolean();
    }
}
