package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeout;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Applies {@link WheelTimeout @WheelTimeout}: proxies beans with annotated methods so that a call
 * schedules the method on a timer instead of running it. Every annotated method is checked when
 * its bean is created (return type, delay, timer bean, executor bean), so a mistake stops the
 * application at startup rather than at the first call; the outcome is kept per method. Reads
 * {@value #EXECUTOR_PROPERTY} and {@value #PROPAGATE_CONTEXT_PROPERTY} from the environment: a
 * name set there other than {@value #DEFAULT_EXECUTOR} that is not an Executor bean stops startup
 * too.
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

    private static final String ANNOTATION = "@WheelTimeout";

    private final HandedOverCalls handedOverCalls = new HandedOverCalls();
    private String defaultExecutor = DEFAULT_EXECUTOR;
    /** Whether {@link #defaultExecutor} was set to a name other than the default, and so must exist. */
    private boolean defaultExecutorRequired;

    private volatile boolean defaultExecutorChecked;
    private boolean propagateContext = true;

    /** Proxies annotated methods; without an environment, calls use {@value #DEFAULT_EXECUTOR} and carry their context. */
    public WheelTimeoutBeanPostProcessor() {
        super(WheelTimeout.class);
        advise(new WheelTimeoutInterceptor(this::checked, handedOverCalls));
    }

    /**
     * How many calls of this post-processor's beans fired on {@code timer} and wait for a thread of
     * their executor; a shutdown waits for these to start.
     */
    public int callsWaitingToStart(Timer timer) {
        return handedOverCalls.waiting(timer);
    }

    /**
     * For a shutdown: the calls of this post-processor's beans that fired on {@code timer} still
     * start after it stops, until {@link #closeCalls}. Otherwise a call that finds its timer
     * stopped never starts, since the context may be closed by then.
     */
    public void keepCallsOpen(Timer timer) {
        handedOverCalls.keepOpen(timer);
    }

    /** Ends {@link #keepCallsOpen}: a call of {@code timer} that has not started by now never does. */
    public void closeCalls(Timer timer) {
        handedOverCalls.close(timer);
    }

    @Override
    public void setEnvironment(Environment environment) {
        String executor = environment.getProperty(EXECUTOR_PROPERTY);
        this.defaultExecutor = executor != null ? executor.trim() : DEFAULT_EXECUTOR;
        this.defaultExecutorRequired =
                executor != null && !defaultExecutor.isEmpty() && !defaultExecutor.equals(DEFAULT_EXECUTOR);
        this.propagateContext = environment.getProperty(PROPAGATE_CONTEXT_PROPERTY, Boolean.class, true);
    }

    @Override
    ScheduledMethod check(Method method, String description, WheelTimeout annotation) {
        AnnotatedMethods.checkProxyable(method, description, ANNOTATION, "defer");
        ScheduledMethod.Result result = resultOf(method, description);
        Duration delay = AnnotatedDurations.parse(
                ANNOTATION, description, "delay", annotation.delay(), annotation.timeUnit(), valueResolver);
        AnnotatedTimer timer = timer(description, annotation.timer());
        String executorName = AnnotatedDurations.resolve(
                        ANNOTATION, description, "executor", annotation.executor(), valueResolver)
                .trim();
        if (!executorName.isEmpty()) {
            checkExecutor(executorName, description);
            return new ScheduledMethod(
                    description, delay.toNanos(), result, timer, executorName, true, propagateContext, beanFactory);
        }
        checkDefaultExecutor();
        return new ScheduledMethod(
                description,
                delay.toNanos(),
                result,
                timer,
                defaultExecutor,
                defaultExecutorRequired,
                propagateContext,
                beanFactory);
    }

    /** A typo in {@value #EXECUTOR_PROPERTY} stops startup even if no annotated method exists. */
    @Override
    void checkAfterSingletons() {
        checkDefaultExecutor();
    }

    /**
     * A name set in {@value #EXECUTOR_PROPERTY} must be an Executor bean, here or in a parent
     * context; only the default, {@value #DEFAULT_EXECUTOR}, may be absent (the timer's own
     * executor runs the calls then). Checked once.
     */
    private void checkDefaultExecutor() {
        if (!defaultExecutorRequired || defaultExecutorChecked) {
            return;
        }
        if (!isExecutor(defaultExecutor)) {
            String reason = beanFactory.containsBean(defaultExecutor)
                    ? "the bean '" + defaultExecutor + "' is not a java.util.concurrent.Executor"
                    : "there is no bean named '" + defaultExecutor + "'";
            throw new InvalidConfigurationPropertyValueException(
                    EXECUTOR_PROPERTY,
                    defaultExecutor,
                    reason + "; name an Executor bean (Executor beans: " + Arrays.toString(executorBeanNames())
                            + "), or leave it empty to run @WheelTimeout calls on the timer's own executor");
        }
        defaultExecutorChecked = true;
    }

    /** An executor the annotation names must be an Executor bean, here or in a parent context. */
    private void checkExecutor(String executorName, String description) {
        if (!isExecutor(executorName)) {
            String[] executors = executorBeanNames();
            String known = executors.length == 0 ? "" : " (" + String.join(", ", executors) + ")";
            throw new InvalidWheelAnnotationException(
                    ANNOTATION,
                    description,
                    "executor '" + executorName + "' is not the name of a java.util.concurrent.Executor bean",
                    executors.length == 0
                            ? "there is no Executor bean"
                            : "Executor beans: " + Arrays.toString(executors),
                    "Set @WheelTimeout(executor = \"...\") to the name of an Executor bean" + known
                            + ", or leave it empty to use the bean that " + EXECUTOR_PROPERTY + " names.");
        }
    }

    private boolean isExecutor(String name) {
        return beanFactory.containsBean(name) && beanFactory.isTypeMatch(name, Executor.class);
    }

    private String[] executorBeanNames() {
        return BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, Executor.class, true, false);
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
        String allowed = "void, Timeout, CompletableFuture, CompletionStage or Future";
        throw new InvalidWheelAnnotationException(
                ANNOTATION,
                description,
                "the method returns " + type.getName(),
                "it must return " + allowed + ", because the call returns before the method runs",
                "Make " + description + " return " + allowed + ", or remove @WheelTimeout.");
    }
}
