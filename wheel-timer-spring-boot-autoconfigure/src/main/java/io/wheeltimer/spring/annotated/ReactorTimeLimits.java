package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeLimit;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Deadlines for {@code Mono} and {@code Flux} results of {@link WheelTimeLimit @WheelTimeLimit}
 * methods. Its own class so that Reactor stays optional: it is loaded only when Reactor is on the
 * class path. Reactor's own {@code timeout} operator runs on Reactor's schedulers and restarts at
 * every item; here one wheel timeout per subscription covers the whole sequence.
 */
final class ReactorTimeLimits {

    private ReactorTimeLimits() {}

    static boolean isReactive(Class<?> type) {
        return type == Mono.class || type == Flux.class;
    }

    static Object limit(Object publisher, TimeLimitedMethod method) {
        if (publisher instanceof Mono<?> mono) {
            return Mono.defer(() -> {
                Deadline deadline = new Deadline(method);
                return source(mono, method).takeUntilOther(deadline.signal()).switchIfEmpty(deadline.timedOut());
            });
        }
        Flux<?> flux = (Flux<?>) publisher;
        return Flux.defer(() -> {
            Deadline deadline = new Deadline(method);
            return source(flux, method).takeUntilOther(deadline.signal()).concatWith(deadline.timedOut());
        });
    }

    /**
     * {@code takeUntilOther} cancels the source when the deadline fires; without
     * {@code cancelOnTimeout} the source is shared, so that cancel stops at the share and the
     * source's subscription is not disposed (its later items are dropped).
     */
    private static Flux<?> source(Flux<?> flux, TimeLimitedMethod method) {
        return method.cancelOnTimeout ? flux : flux.publish().autoConnect();
    }

    private static Mono<?> source(Mono<?> mono, TimeLimitedMethod method) {
        return method.cancelOnTimeout
                ? mono
                : mono.flux().publish().autoConnect().singleOrEmpty();
    }

    /** The deadline of one subscription. */
    private static final class Deadline {

        private final TimeLimitedMethod method;
        private volatile boolean fired;

        Deadline(TimeLimitedMethod method) {
            this.method = method;
        }

        /** Emits when the limit passes; cancelled (and its timeout with it) when the source ends first. */
        Mono<Boolean> signal() {
            return Mono.create(sink -> {
                Timer timer = method.timer();
                Timeout timeout;
                try {
                    timeout = timer.newTimeout(
                            t -> {
                                fired = true;
                                sink.success(Boolean.TRUE);
                            },
                            method.limitNanos,
                            TimeUnit.NANOSECONDS);
                } catch (IllegalStateException | RejectedExecutionException e) {
                    sink.error(method.refused(timer, e));
                    return;
                }
                sink.onDispose(timeout::cancel);
            });
        }

        /** Completes quietly when the source ended in time, or fails with the timeout. */
        <T> Mono<T> timedOut() {
            return Mono.defer(() -> {
                if (!fired) {
                    return Mono.empty();
                }
                method.exceeded();
                return Mono.error(method.timeoutException());
            });
        }
    }
}
