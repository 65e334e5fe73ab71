package io.wheeltimer.spring.autoconfigure.durable;

/** Wraps each run of a {@code @DurableTimerTask} method, for an observation. */
interface TaskRunObserver {

    /** Runs as it is: no observation. */
    TaskRunObserver NONE = (description, run) -> run.run();

    /** Runs {@code run}, the run of the method {@code description} names. */
    void observe(String description, Run run) throws Exception;

    /** One run of a handler method. */
    @FunctionalInterface
    interface Run {
        void run() throws Exception;
    }
}
