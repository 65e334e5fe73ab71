package io.wheeltimer.jdbc;

import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * This instance's lease, one row of the instances table whatever it holds, renewed at each poll:
 * by the database's clock (the statement writes the database's time plus the lease and returns that
 * time, which measures this instance's offset to it), or by this instance's clock
 * ({@link TimeSource#INSTANCE}). It also tells whether the lease lapsed between two renewals, which
 * may have let the other instances take what this one held.
 */
final class Lease {

    private static final System.Logger log = TimerLog.LOGGER;

    private final TimerContext context;
    private final TimerSettings settings;
    /** Null when the builder's clock judges. */
    private final DatabaseClock databaseClock;

    private final RepeatLog skew =
            new RepeatLog(log, "readings of a clock skew over 1 s", TimeUnit.MINUTES.toNanos(10), System::nanoTime);

    /** This instance's clock (ms) when the lease was last renewed; 0 before the first renewal. Poll thread only. */
    private long lastRenewalMillis;

    Lease(TimerContext context) {
        this.context = context;
        this.settings = context.settings();
        this.databaseClock = context.databaseClock();
    }

    /**
     * Renews the lease at {@code nowMillis}; whether the renewal before this one was a lease or more
     * ago (never at the first renewal).
     */
    boolean renew(TimeoutTable t, long nowMillis) {
        long leaseMillis = settings.lease().toMillis();
        context.transactions().joinedOrOwnNoResult(() -> write(t, nowMillis, leaseMillis));
        boolean lapsed = lastRenewalMillis != 0 && nowMillis - lastRenewalMillis >= leaseMillis;
        lastRenewalMillis = nowMillis;
        return lapsed;
    }

    private void write(TimeoutTable t, long nowMillis, long leaseMillis) {
        if (databaseClock == null) {
            t.renewLease(settings.instanceId(), nowMillis + leaseMillis);
            return;
        }
        long beforeNanos = databaseClock.monotonicNanos();
        long databaseMillis = t.renewLeaseByDatabaseTime(settings.instanceId(), leaseMillis);
        long afterNanos = databaseClock.monotonicNanos();
        databaseClock.measured(databaseMillis, beforeNanos, afterNanos, databaseClock.wallMillis());
        Duration offset = databaseClock.offset();
        if (offset.abs().compareTo(Duration.ofSeconds(1)) > 0) {
            skew.report(
                    () -> "Durable timer " + settings.instanceId() + ": this instance's clock is "
                            + Durations.format(offset.abs()) + (offset.isNegative() ? " ahead of" : " behind")
                            + " the database's; deadlines and leases are judged by the database's clock, so"
                            + " timeouts still fire on time, but the clocks should be synchronized (NTP)",
                    null);
        }
    }
}
