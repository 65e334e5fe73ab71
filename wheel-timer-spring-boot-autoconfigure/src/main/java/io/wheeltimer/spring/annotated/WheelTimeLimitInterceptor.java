package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeLimit;
import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;

/** Runs a {@link WheelTimeLimit @WheelTimeLimit} method and gives its result a deadline on the wheel. */
final class WheelTimeLimitInterceptor implements MethodInterceptor {

    private final BiFunction<Method, Class<?>, TimeLimitedMethod> limitedMethods;

    WheelTimeLimitInterceptor(BiFunction<Method, Class<?>, TimeLimitedMethod> limitedMethods) {
        this.limitedMethods = limitedMethods;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null
                ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        TimeLimitedMethod method = limitedMethods.apply(invocation.getMethod(), targetClass);
        return switch (method.result) {
            case FUTURE, STAGE -> limitFuture(invocation, method);
            case MONO, FLUX -> {
                Object publisher = invocation.proceed();
                yield publisher != null ? ReactorTimeLimits.limit(publisher, method) : null;
            }
        };
    }

    /** Scheduled before the method runs, so that a stopped timer refuses the call rather than leave work unlimited. */
    private static Object limitFuture(MethodInvocation invocation, TimeLimitedMethod method) throws Throwable {
        LimitedCall call = new LimitedCall(method);
        Timer timer = method.timer();
        Timeout timeout;
        try {
            timeout = timer.newTimeout(call, method.limitNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException | RejectedExecutionException e) {
            throw method.refused(timer, e);
        }
        call.start(timeout);
        Object returned;
        try {
            returned = invocation.proceed();
        } catch (Throwable t) {
            call.abandon();
            throw t;
        }
        if (returned == null) {
            call.abandon();
            return null;
        }
        call.follow((CompletionStage<?>) returned);
        return call.result;
    }
}
