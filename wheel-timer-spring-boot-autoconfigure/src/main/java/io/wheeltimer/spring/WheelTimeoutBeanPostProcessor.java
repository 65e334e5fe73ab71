package io.wheeltimer.spring;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Applies {@link WheelTimeout @WheelTimeout}: proxies beans with annotated methods so that a call
 * schedules the method on a timer instead of running it. Every annotated method is checked when
 * its bean is created (return type, delay, timer bean, executor bean), so a mistake stops the
 * application at startup rather than at the first call; the outcome is kept per method. Reads
 * {@value #EXECUTOR_PROPERTY} and {@value #PROPAGATE_CONTEXT_PROPERTY} from the environment.
 */
@SuppressWarnings("serial")
public class WheelTimeoutBeanPostProcessor extends AnnotatedMethodPostProcessor<WheelTimeout, ScheduledMethod>
        implements EnvironmentAware {

    /** Bean name of the executor of calls whose annotation names none. */
    public static final String EXECUTOR_PROPERTY = "wheel-timer.annotation.executor";
    /** Whether calls carry the caller's context. */
    public static final String PROPAGATE_CONTEXT_PROPERTY = "wheel-timer.annotation.propagate-context";
    /** The default of {@value #EXECUTOR_PROPERTY}: the executor {@code @Async} uses. */
    public static final String DEFAULT_EXECUTOR = "applicationTaskExecutor";

    private final HandedOverCalls handedOverCalls = new HandedOverCalls();
    private String defaultExecutor = DEFAULT_EXECUTOR;
    private boolean propagateContext = true;

    /** Proxies annotated methods; without an environment, calls use {@value #DEFAULT_EXECUTOR} and carry their context. */
    public WheelTimeoutBeanPostProcessor() {
        super(WheelTimeout.class);
        advise(new WheelTimeoutInterceptor(this::checked, handedOverCalls));
    }

    /**
     * How many calls of this post-processor's beans fired on {@code timer} and wait for a thread of
     * their executor; a call that finds its timer stopped never starts, so a shutdown waits for
     * these first.
     */
    public int callsWaitingToStart(Timer timer) {
        return handedOverCalls.waiting(timer);
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.defaultExecutor =
                environment.getProperty(EXECUTOR_PROPERTY, DEFAULT_EXECUTOR).trim();
        this.propagateContext = environment.getProperty(PROPAGATE_CONTEXT_PROPERTY, Boolean.class, true);
    }

    @Override
    ScheduledMethod check(Method method, String description, WheelTimeout annotation) {
        AnnotatedMethods.checkProxyable(method, description, "@WheelTimeout", "defer");
        ScheduledMethod.Result result = resultOf(method, description);
        Duration delay = delayOf(annotation, description);
        String timerName = annotation.timer();
        checkTimer(timerName, description);
        String executorName =
                resolve(annotation.executor(), "executor", description).trim();
        if (!executorName.isEmpty()) {
            checkExecutor(executorName, description);
            return new ScheduledMethod(
                    description, delay.toNanos(), result, timerName, executorName, true, propagateContext, beanFactory);
        }
        return new ScheduledMethod(
                description, delay.toNanos(), result, timerName, defaultExecutor, false, propagateContext, beanFactory);
    }

    private String resolve(String text, String attribute, String description) {
        try {
            String resolved = valueResolver != null && !text.isEmpty() ? valueResolver.resolveStringValue(text) : text;
            return resolved != null ? resolved : "";
        } catch (IllegalArgumentException unresolvable) {
            throw new IllegalStateException(
                    "@WheelTimeout on " + description + ": " + attribute + " '" + text + "' cannot be resolved: "
                            + unresolvable.getMessage(),
                    unresolvable);
        }
    }

    /** An executor the annotation names must be an Executor bean, here or in a parent context. */
    private void checkExecutor(String executorName, String description) {
        if (!beanFactory.containsBean(executorName) || !beanFactory.isTypeMatch(executorName, Executor.class)) {
            String[] executors =
                    BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, Executor.class, true, false);
            throw new IllegalStateException("@WheelTimeout on " + description + ": executor '" + executorName
                    + "' is not the name of a java.util.concurrent.Executor bean; Executor beans: "
                    + Arrays.toString(executors));
        }
    }

    private static ScheduledMethod.Result resultOf(Method method, String description) {
        Class<?> type = method.getReturnType();
        if (type == void.class) {
            return ScheduledMethod.Result.NONE;
        }
        if (type == Timeout.class) {
            return ScheduledMethod.Result.TIMEOUT;
        }
        if (type == CompletableFuture.class || type == CompletionStage.class || type == Future.class) {
            return ScheduledMethod.Result.FUTURE;
        }
        throw new IllegalStateException("@WheelTimeout method " + description + " returns " + type.getName()
                + "; it must return void, Timeout, CompletableFuture, CompletionStage or Future, because the"
                + " call returns before the method runs");
    }

    private Duration delayOf(WheelTimeout annotation, String description) {
        return AnnotatedDurations.parse(
                "@WheelTimeout on " + description + ": delay",
                annotation.delay(),
                annotation.timeUnit(),
                valueResolver);
    }

    /** The named timer exists, or there is exactly one (or one primary) Timer, here or in a parent context. */
    private void checkTimer(String timerName, String description) {
        AnnotatedDurations.timerBean(
                "@WheelTimeout on " + description, timerName, "@WheelTimeout(timer = \"...\")", beanFactory);
    }
}
