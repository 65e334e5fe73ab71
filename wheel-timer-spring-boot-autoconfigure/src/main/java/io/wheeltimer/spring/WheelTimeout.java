package io.wheeltimer.spring;

import io.wheeltimer.Timeout;
import io.wheeltimer.spring.annotated.InvalidWheelAnnotationException;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.springframework.core.annotation.AliasFor;

/**
 * {@code newTimeout} as an annotation: a call to an annotated method of a Spring bean does not run
 * the method; it schedules it, with the call's arguments, to run on the wheel timer after
 * {@link #delay}, and returns at once.
 *
 * <pre>{@code
 * @WheelTimeout(delay = "${orders.payment-window:30m}")
 * public Timeout cancelIfUnpaid(String orderId) {
 *     orders.cancelIfStillPending(orderId);
 *     return null; // the caller gets the Timeout handle of the scheduled call
 * }
 * }</pre>
 *
 * <p>Return types: {@code void}; {@link Timeout} (the handle: cancel it to prevent the run; the
 * method's own return value is ignored); {@code CompletableFuture<T>}, {@code CompletionStage<T>}
 * or {@code Future<T>} (completes with the result of the future the method returns, after the run;
 * cancelling it cancels the timeout). Any other return type, a delay that does not parse, or an
 * unknown timer bean fails the application's startup with an {@link InvalidWheelAnnotationException}
 * naming the method, which Spring Boot reports as a failure analysis.
 *
 * <p>The worker thread only hands the call over when it is due. It runs on the {@link #executor}
 * named here; else on the bean named by {@code wheel-timer.annotation.executor} (default
 * {@code applicationTaskExecutor}, the executor of {@code @Async}, on virtual threads with
 * {@code spring.threads.virtual.enabled=true}); else, when there is no bean of that default name,
 * on the timer's own task executor (its worker thread by default). Another name set there that is
 * not an {@code Executor} bean fails startup. The caller's SLF4J MDC and every
 * {@code ThreadLocalAccessor} of Micrometer's {@code ContextRegistry} (trace, security, your own)
 * are captured at the call and restored around the run, unless
 * {@code wheel-timer.annotation.propagate-context=false}. The run is outside the caller's
 * transaction.
 *
 * <p>A failure inside the deferred method completes the returned future exceptionally; for
 * {@code void} and {@code Timeout} it is logged and counted as failed by the timer. If the
 * executor refuses the call, the returned future completes exceptionally with the
 * {@link java.util.concurrent.RejectedExecutionException}; if the timer stops before the call ran,
 * it is cancelled, and the call never starts. Like every Spring proxy-based annotation it applies to
 * calls through the bean, not to calls a bean makes on itself. After the timer stopped, a call
 * throws {@link IllegalStateException}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface WheelTimeout {

    /** Alias for {@link #delay}. */
    @AliasFor("delay")
    String value() default "";

    /**
     * How long after the call the method runs: {@code 30s}, {@code 500ms}, {@code PT1M}, a
     * {@code ${...}} placeholder, or a plain number read in {@link #timeUnit}. Zero runs on the next tick.
     */
    @AliasFor("value")
    String delay() default "";

    /** The unit of a plain-number {@link #delay}. */
    TimeUnit timeUnit() default TimeUnit.MILLISECONDS;

    /**
     * Bean name of the {@link io.wheeltimer.Timer} to use (spaces around it are ignored); empty: the
     * one {@code @Autowired Timer} gets, by Spring's rules: the only Timer bean, else the primary
     * one, else the only one that is a default candidate (so a timer declared with
     * {@code @Bean(defaultCandidate = false)} is used only where it is named).
     */
    String timer() default "";

    /**
     * Bean name of the {@link java.util.concurrent.Executor} that runs the call when it is due;
     * empty: the one named by {@code wheel-timer.annotation.executor}. A name that is not an
     * {@code Executor} bean fails startup.
     */
    String executor() default "";
}
