package io.wheeltimer.netty;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

/**
 * A Netty {@link Timeout} made through a {@link NettyTimerView}, and the wheel's task for it: one
 * object per timeout besides the wheel's own handle, whose state it reports and whose cancel it
 * calls.
 */
final class NettyTimeout implements Timeout, io.wheeltimer.TimerTask {

    private final NettyTimerView view;
    private final TimerTask task;
    /**
     * The wheel's timeout. Set when {@code newTimeout} returns, or earlier by the wheel's calls
     * below (a short delay may run the task first): never null once this object is handed out.
     */
    private volatile io.wheeltimer.Timeout scheduled;

    NettyTimeout(NettyTimerView view, TimerTask task) {
        this.view = view;
        this.task = task;
    }

    void scheduled(io.wheeltimer.Timeout timeout) {
        scheduled = timeout;
    }

    /** Neither started nor cancelled. */
    boolean isPending() {
        io.wheeltimer.Timeout timeout = scheduled;
        return !timeout.isExpired() && !timeout.isCancelled();
    }

    @Override
    public Timer timer() {
        return view;
    }

    @Override
    public TimerTask task() {
        return task;
    }

    @Override
    public boolean isExpired() {
        return scheduled.isExpired();
    }

    @Override
    public boolean isCancelled() {
        return scheduled.isCancelled();
    }

    /** As Netty's timer: a winning cancel tells the Netty task, after this returns, on the wheel's thread. */
    @Override
    public boolean cancel() {
        if (!scheduled.cancel()) { // the wheel calls cancelled() below when it wins
            return false;
        }
        view.sendCancelled(this);
        return true;
    }

    /**
     * Cancels for the view's {@code stop()}, without telling the Netty task: Netty's own {@code
     * stop()} returns the timeouts it cancels and never calls their tasks' {@code cancelled}.
     */
    boolean cancelForStop() {
        return scheduled.cancel();
    }

    /** The wheel runs the timeout: it has left the view's pending set before the Netty task starts. */
    @Override
    public void run(io.wheeltimer.Timeout timeout) throws Exception {
        scheduled = timeout;
        view.done(this);
        task.run(this);
    }

    /**
     * The wheel cancelled the timeout, for {@link #cancel()}, the view's stop or the shared timer's:
     * it leaves the view's pending set. The Netty task is told only for {@link #cancel()}; a stop,
     * as Netty's, returns the timeouts it cancelled and does not tell their tasks.
     */
    @Override
    public void cancelled(io.wheeltimer.Timeout timeout) {
        scheduled = timeout;
        view.done(this);
    }

    /** The Netty task's own description: what {@code upcoming} and the wheel's log lines show. */
    @Override
    public String toString() {
        return String.valueOf(task);
    }
}
