package io.wheeltimer.netty;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One view made by {@link NettyTimer#of}: schedules on the shared timer and keeps the set of its
 * own timeouts that have not run, which {@link #stop()} cancels and returns. A timeout leaves the
 * set when its task is about to start or when it is cancelled (by anyone, the shared timer's stop
 * included), so the set holds no more than the view's pending timeouts.
 */
final class NettyTimerView implements io.netty.util.Timer {

    private final io.wheeltimer.Timer timer;
    /** Made through this view, scheduled, and neither started nor cancelled (a moment late at most). */
    private final Set<NettyTimeout> unrun = ConcurrentHashMap.newKeySet();

    private volatile boolean stopped;

    NettyTimerView(io.wheeltimer.Timer timer) {
        this.timer = timer;
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task must not be null");
        Objects.requireNonNull(unit, "unit must not be null");
        if (stopped) {
            throw new IllegalStateException("cannot be started once stopped");
        }
        NettyTimeout timeout = new NettyTimeout(this, task);
        timeout.scheduled(timer.newTimeout(timeout, delay, unit));
        unrun.add(timeout);
        if (!timeout.isPending()) {
            // Ran or was cancelled before it was added: its removal came first, so undo the add.
            unrun.remove(timeout);
        } else if (stopped) {
            // stop() raced this call and may have looked at the set before the add: cancel it here
            // and refuse, unless stop() (or its task) got to it first, in which case it is already
            // in the set stop() returns (or has run) and this call succeeded.
            if (timeout.cancelForStop()) {
                throw new IllegalStateException("cannot be started once stopped");
            }
        }
        return timeout;
    }

    /**
     * Cancels the timeouts made through this view that never ran and returns them, without calling
     * their tasks' {@code cancelled}, as Netty's own {@code stop()}; the shared timer keeps running,
     * and a second call returns an empty set.
     */
    @Override
    public Set<Timeout> stop() {
        stopped = true;
        Set<Timeout> cancelled = new HashSet<>();
        for (NettyTimeout timeout : unrun) {
            if (timeout.cancelForStop()) { // false if its task started meanwhile
                cancelled.add(timeout);
            }
        }
        return Collections.unmodifiableSet(cancelled);
    }

    /** A caller's cancel of {@code timeout} won: its task is told on the shared timer's thread. */
    void sendCancelled(NettyTimeout timeout) {
        CancelledNotice.send(timer, timeout);
    }

    /** The timeout is about to run, or was cancelled: it is no longer the view's to stop. */
    void done(NettyTimeout timeout) {
        unrun.remove(timeout);
    }

    @Override
    public String toString() {
        return "NettyTimer(" + timer + (stopped ? ", stopped" : "") + ")";
    }
}
