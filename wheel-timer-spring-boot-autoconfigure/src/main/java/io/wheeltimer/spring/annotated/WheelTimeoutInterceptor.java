package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeout;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;

/** Turns a call to a {@link WheelTimeout @WheelTimeout} method into a timeout. */
final class WheelTimeoutInterceptor implements MethodInterceptor {

    private final BiFunction<Method, Class<?>, ScheduledMethod> scheduledMethods;
    private final HandedOverCalls handedOverCalls;

    WheelTimeoutInterceptor(
            BiFunction<Method, Class<?>, ScheduledMethod> scheduledMethods, HandedOverCalls handedOverCalls) {
        this.scheduledMethods = scheduledMethods;
        this.handedOverCalls = handedOverCalls;
    }

    @Override
    public Object invoke(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null
                ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        ScheduledMethod method = scheduledMethods.apply(invocation.getMethod(), targetClass);
        ScheduledMethod.Resolved beans = method.resolved();
        // Captured now, on the caller's thread: when the timeout fires, the caller is gone.
        CallerContext context = method.propagateContext ? CallerContext.capture() : CallerContext.NONE;
        DeferredCall call = new DeferredCall(method, beans, invocation, context, handedOverCalls);
        Timer timer = beans.timer();
        Timeout timeout;
        try {
            timeout = timer.newTimeout(call, method.delayNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException e) {
            boolean stopped = AnnotatedTimer.isStopped(timer);
            throw new IllegalStateException(
                    "Cannot schedule " + method.description + ": " + method.timerName()
                            + (stopped ? " is stopped" : " refused it: " + e.getMessage()),
                    e);
        }
        return switch (method.result) {
            case NONE -> null;
            case TIMEOUT -> timeout;
            case FUTURE -> call.result(timeout);
        };
    }
}
