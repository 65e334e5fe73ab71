package io.wheeltimer.spring;

import io.wheeltimer.spring.annotated.InvalidWheelAnnotationException;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.springframework.core.annotation.AliasFor;

/**
 * A deadline on the wheel timer for the asynchronous result of a Spring bean's method. The method
 * runs at once, as without the annotation; the caller gets a result that fails with a
 * {@link java.util.concurrent.TimeoutException} if the method's own result has not completed within
 * {@link #limit}. The message names the method and the limit:
 * {@code com.example.Quotes.fetch(String) did not complete within PT2S}.
 *
 * <pre>{@code
 * @WheelTimeLimit("${quotes.limit:2s}")
 * public CompletableFuture<Quote> fetch(String symbol) {
 *     return client.quote(symbol);
 * }
 * }</pre>
 *
 * <p>Return types: {@code CompletableFuture<T>} and {@code CompletionStage<T>} (the caller gets a
 * new future that completes as the method's does, or with the timeout; cancelling it cancels the
 * deadline and, with {@link #cancelOnTimeout}, the method's future), and, with Reactor on the class
 * path, {@code Mono<T>} and {@code Flux<T>} (the deadline starts at subscription, covers the whole
 * sequence, and items pass through as they arrive). A plain {@code Future} cannot be limited
 * without blocking a thread, so it fails the application's startup like any other return type; so
 * do a limit that does not parse and an unknown timer bean, with an
 * {@link InvalidWheelAnnotationException} naming the method. A
 * method that returns {@code null} or throws is passed through as it is. After the timer stopped,
 * a call throws {@link IllegalStateException} before the method runs (a Reactor result signals it).
 *
 * <p>A method cannot carry both this and {@link WheelTimeout @WheelTimeout}: the application fails
 * to start, naming the method. The two mean different calls: {@code @WheelTimeout} returns at once
 * and runs the method later, so a limit on its result would start before the method does and mix
 * the delay into the limit. Put the limit on the method that the deferred one calls instead.
 *
 * <p>When the limit passes first, the counter {@code wheel.timer.time.limit.exceeded} (tags
 * {@code name}: the timer bean, {@code task}: the method) counts it, if the application has a
 * Micrometer {@code MeterRegistry}. Like every Spring proxy-based annotation it applies to calls
 * through the bean, not to calls a bean makes on itself.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface WheelTimeLimit {

    /** Alias for {@link #limit}. */
    @AliasFor("limit")
    String value() default "";

    /**
     * How long the method's result may take, from the call (for Reactor types, from the
     * subscription): {@code 2s}, {@code 500ms}, {@code PT1M}, a {@code ${...}} placeholder, or a
     * plain number read in {@link #timeUnit}. Zero fails on the next tick. The deadline fires
     * within one tick of the timer after the limit.
     */
    @AliasFor("value")
    String limit() default "";

    /** The unit of a plain-number {@link #limit}. */
    TimeUnit timeUnit() default TimeUnit.MILLISECONDS;

    /**
     * Bean name of the {@link io.wheeltimer.Timer} to use (spaces around it are ignored); empty: the
     * one {@code @Autowired Timer} gets, by Spring's rules: the only Timer bean, else the primary
     * one, else the only one that is a default candidate (so a timer declared with
     * {@code @Bean(defaultCandidate = false)} is used only where it is named).
     */
    String timer() default "";

    /**
     * Whether a timeout also cancels the method's own future ({@code cancel(true)}) or disposes
     * the subscription to its {@code Mono} / {@code Flux}, so the work behind it can stop. When
     * false, the method's result is left to complete on its own and is then ignored.
     */
    boolean cancelOnTimeout() default true;
}
