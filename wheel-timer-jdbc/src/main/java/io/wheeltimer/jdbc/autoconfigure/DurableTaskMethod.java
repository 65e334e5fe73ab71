package io.wheeltimer.jdbc.autoconfigure;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimeoutHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ReflectionUtils;

/**
 * A checked {@link io.wheeltimer.jdbc.DurableTimerTask @DurableTimerTask} method of a bean, as the
 * handler of its task. The bean is looked up by name when a timeout fires, so the call goes through
 * its proxy ({@code @Transactional} and the like apply) and a lazy bean is created only then.
 */
final class DurableTaskMethod implements DurableTimeoutHandler {

    private final String task;
    private final String beanName;
    private final Method method;
    private final String description;
    private final boolean takesKey;
    private final BeanFactory beanFactory;
    private final TaskRunObserver observer;

    /** The method as the proxy class exposes it, for the bean class it was resolved for. */
    private volatile Resolved resolved;

    DurableTaskMethod(
            DurableTimerTaskBeanPostProcessor.Found found, BeanFactory beanFactory, TaskRunObserver observer) {
        this.task = found.task();
        this.beanName = found.beanName();
        this.method = found.method();
        this.description = found.description();
        this.takesKey = method.getParameterTypes()[0] == String.class;
        this.beanFactory = beanFactory;
        this.observer = observer;
    }

    /**
     * The method as errors and observations name it: the user's class (not the proxy's), the method
     * and its simple parameter type names, e.g. {@code com.example.Orders.cancelIfUnpaid(String)}.
     */
    static String describe(Method method, Class<?> userClass) {
        return userClass.getName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    String task() {
        return task;
    }

    String beanName() {
        return beanName;
    }

    Method method() {
        return method;
    }

    String description() {
        return description;
    }

    @Override
    public void handle(DurableTimeout timeout) throws Exception {
        Object bean = beanFactory.getBean(beanName);
        Method invocable = invocableOn(bean);
        Object argument = takesKey ? timeout.key() : timeout;
        observer.observe(description, () -> invoke(invocable, bean, argument));
    }

    /**
     * The method to call on {@code bean}: on a JDK proxy, the interface method; fails, naming the
     * method, when the proxy cannot delegate it (a private method of a proxied class, or a method no
     * interface of a JDK proxy declares).
     */
    Method invocableOn(Object bean) {
        Class<?> type = bean.getClass();
        Resolved known = resolved;
        if (known != null && known.type == type) {
            return known.method;
        }
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method, type);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(
                    "@DurableTimerTask method " + description + " of bean '" + beanName
                            + "' cannot be called through its proxy: " + e.getMessage(),
                    e);
        }
        ReflectionUtils.makeAccessible(invocable);
        resolved = new Resolved(type, invocable);
        return invocable;
    }

    private static void invoke(Method invocable, Object bean, Object argument) throws Exception {
        try {
            invocable.invoke(bean, argument);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return description;
    }

    private record Resolved(Class<?> type, Method method) {}
}
