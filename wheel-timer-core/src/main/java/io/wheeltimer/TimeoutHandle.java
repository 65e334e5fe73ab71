package io.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The {@link Timeout} of a {@link HashedWheelTimer}: a wheel entry (so a pending timeout is one
 * object), a node of the hand-off stacks ({@link TimeoutStack}), and the {@link Runnable} handed
 * to a task executor. It knows its timer only through the narrow {@link TimeoutOwner}.
 *
 * <p>Its state moves {@code PENDING -> IN_WHEEL -> EXPIRED}, or to {@code CANCELLED} from either
 * of the first two, by compare-and-set: exactly one of the worker's expiry and a user's cancel wins.
 * {@code PENDING} means "handed off, not yet taken by the worker", so a cancel in that state needs
 * no help from the worker; {@code WITHDRAWN} is a {@code newTimeout} undone because the timer
 * stopped meanwhile.
 *
 * <p>Its one subclass, {@link DeadlineHandle}, is its own task: the deadline of a future.
 */
sealed class TimeoutHandle extends TimingWheel.Entry implements Timeout, Runnable permits DeadlineHandle {

    static final int PENDING = 0;
    static final int IN_WHEEL = 1;
    static final int EXPIRED = 2;
    static final int CANCELLED = 3;
    static final int WITHDRAWN = 4;

    private static final VarHandle STATE;
    private static final VarHandle LINK;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(TimeoutHandle.class, "state", int.class);
            LINK = lookup.findVarHandle(TimeoutHandle.class, "link", TimeoutHandle.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TimeoutOwner owner;
    private final TimerTask task;
    /**
     * Whether this is one of the timer's timeouts, in its counts and its limit: false for a module's
     * {@link io.wheeltimer.internal.Notice}. Fits in the padding of the object: it costs no byte.
     */
    final boolean counted;

    private volatile int state;
    /** Next node in a {@link TimeoutStack}; null while in none. Accessed through {@link #LINK}. */
    @SuppressWarnings("unused")
    private TimeoutHandle link;

    TimeoutHandle(TimeoutOwner owner, TimerTask task, long deadlineNanos, boolean counted) {
        this.owner = owner;
        this.task = task;
        this.deadlineNanos = deadlineNanos;
        this.counted = counted;
    }

    /** A counted handle that is its own task, so that it needs no second object. */
    TimeoutHandle(TimeoutOwner owner, long deadlineNanos) {
        this.owner = owner;
        this.task = (TimerTask) this;
        this.deadlineNanos = deadlineNanos;
        this.counted = true;
    }

    @Override
    public Timer timer() {
        return owner.timer();
    }

    @Override
    public TimerTask task() {
        return task;
    }

    @Override
    public boolean isExpired() {
        return state == EXPIRED;
    }

    @Override
    public boolean isCancelled() {
        return state == CANCELLED;
    }

    @Override
    public boolean cancel() {
        int before = claimForCancel();
        if (before < 0) {
            return false;
        }
        owner.onCancelled(this, before == IN_WHEEL);
        return true;
    }

    /** Runs the task on the executor's thread; see {@link TimeoutOwner#runTask}. */
    @Override
    public void run() {
        owner.runTask(this);
    }

    int state() {
        return state;
    }

    boolean compareAndSetState(int expected, int next) {
        return STATE.compareAndSet(this, expected, next);
    }

    /** Cancels on behalf of {@code stop()}: like {@link #cancel()}, without the hand-off to the worker. */
    boolean cancelForStop() {
        return claimForCancel() >= 0;
    }

    /**
     * Moves a pending handle to {@code CANCELLED}; exactly one caller wins.
     *
     * @return the state it was in ({@code PENDING} or {@code IN_WHEEL}), or -1 if it had already ended
     */
    private int claimForCancel() {
        for (int s = state; s == PENDING || s == IN_WHEEL; s = state) {
            if (STATE.compareAndSet(this, s, CANCELLED)) {
                return s;
            }
        }
        return -1;
    }

    TimeoutHandle linkAcquire() {
        return (TimeoutHandle) LINK.getAcquire(this);
    }

    /** For a push: the compare-and-set that publishes this handle orders the write. */
    void linkPlain(TimeoutHandle next) {
        link = next;
    }

    void linkRelease(TimeoutHandle next) {
        LINK.setRelease(this, next);
    }

    @Override
    public String toString() {
        int s = state;
        String status = s == EXPIRED ? ", expired" : s == CANCELLED || s == WITHDRAWN ? ", cancelled" : "";
        return "Timeout(deadline: " + deadlineNanos + " ns after start" + status + ", task: " + describeTask() + ")";
    }

    /** The task, for log lines and {@code upcoming}; never throws. */
    String describeTask() {
        return describe(task);
    }

    /** The task's {@code toString()}, which is user code: it must not break the worker or a log line. */
    static String describe(TimerTask task) {
        try {
            return String.valueOf(task);
        } catch (RuntimeException | LinkageError e) {
            return task.getClass().getName() + " (its toString() threw " + e + ")";
        }
    }
}
