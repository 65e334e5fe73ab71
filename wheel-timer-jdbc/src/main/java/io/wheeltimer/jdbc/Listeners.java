package io.wheeltimer.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Every listener of a timer as one: each one's failure is logged and kept from the others and from
 * the timer, {@link Error}s included, since a listener runs inside the timer's own steps (after a
 * commit, on the wheel's thread) where a throw would leave a timeout half done.
 */
record Listeners(List<DurableTimerListener> all) implements DurableTimerListener {

    private static final System.Logger log = TimerLog.LOGGER;

    Listeners {
        all = List.copyOf(all);
    }

    private void each(Consumer<DurableTimerListener> call) {
        for (DurableTimerListener l : all) {
            try {
                call.accept(l);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (RuntimeException | Error e) {
                log.log(System.Logger.Level.WARNING, () -> "Durable timer listener " + l + " threw", e);
            }
        }
    }

    @Override
    public void scheduled(String task) {
        each(l -> l.scheduled(task));
    }

    @Override
    public void cancelled(String task) {
        each(l -> l.cancelled(task));
    }

    @Override
    public void started(DurableTimeout timeout, Duration lateness) {
        each(l -> l.started(timeout, lateness));
    }

    @Override
    public void fired(String task) {
        each(l -> l.fired(task));
    }

    @Override
    public void retried(String task, Throwable error) {
        each(l -> l.retried(task, error));
    }

    @Override
    public void failed(String task, Throwable error) {
        each(l -> l.failed(task, error));
    }
}
