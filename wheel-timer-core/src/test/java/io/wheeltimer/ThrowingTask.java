package io.wheeltimer;

/**
 * User code that throws where the timer calls it: from {@code run}, {@code cancelled} or {@code
 * toString}, as chosen; each throws a {@link RuntimeException} with the message given for it. The
 * timer must log or describe it and go on.
 */
final class ThrowingTask implements TimerTask {

    private final String runFailure;
    private final String cancelledFailure;
    private final String toStringFailure;

    private ThrowingTask(String runFailure, String cancelledFailure, String toStringFailure) {
        this.runFailure = runFailure;
        this.cancelledFailure = cancelledFailure;
        this.toStringFailure = toStringFailure;
    }

    /** Throws from {@code run} only. */
    static ThrowingTask onRun(String message) {
        return new ThrowingTask(message, null, null);
    }

    /** Throws from {@code cancelled} only. */
    static ThrowingTask onCancelled(String message) {
        return new ThrowingTask(null, message, null);
    }

    /** Throws from {@code toString} only. */
    static ThrowingTask onToString(String message) {
        return new ThrowingTask(null, null, message);
    }

    /** This task, and also throwing from {@code toString}. */
    ThrowingTask andOnToString(String message) {
        return new ThrowingTask(runFailure, cancelledFailure, message);
    }

    @Override
    public void run(Timeout timeout) {
        if (runFailure != null) {
            throw new IllegalStateException(runFailure);
        }
    }

    @Override
    public void cancelled(Timeout timeout) {
        if (cancelledFailure != null) {
            throw new IllegalStateException(cancelledFailure);
        }
    }

    @Override
    public String toString() {
        if (toStringFailure != null) {
            throw new IllegalStateException(toStringFailure);
        }
        return "a task that throws from run: " + runFailure + ", from cancelled: " + cancelledFailure;
    }
}
