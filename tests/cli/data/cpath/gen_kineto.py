#!/usr/bin/env python3
"""gen_kineto.py [--wait | --stream-sync] OUT: a small PyTorch profiler (Kineto) trace whose
critical path by HTA's rules is known, written to OUT.

The rules (those of Holistic Trace Analysis, hta/analyzers/
critical_path_analysis.py, as tests/cli/critical-path.test reads them):
  1. every host event (cpu_op, cuda_runtime) and every kernel is a start
     and an end instant;
  2. on a host thread: a parent's start -> its first child's start, a
     child's end -> the next sibling's start or the parent's end, each
     weighing the time between them; an event with no child: start -> end,
     its duration, except a blocking call (cudaDeviceSynchronize,
     cudaEventSynchronize, ...), whose own span weighs 0; a top-level
     event's end -> the next top-level event's start, weight 0;
  3. a kernel: start -> end, its duration; its launch call's start -> its
     start (the launch delay) when its stream was idle at the call (and
     the kernel a stream wait makes it wait for, if any, had ended), else
     the previous kernel's end on the stream -> its start (where that ended
     after the awaited kernel);
  3b. cudaStreamWaitEvent (its Stream Wait Event names the waiting stream,
     the recorded stream and the cudaEventRecord): the next kernel the
     calling thread launches onto the waiting stream waits (weight 0,
     end -> start) for the kernel launched last onto the recorded stream
     before the record;
  4. cudaDeviceSynchronize's end waits (weight 0) for the last kernel to
     start before it on every stream; cudaEventSynchronize's end for the
     kernel launched last onto the recorded stream before the
     cudaEventRecord its Event Sync names;
  5. the critical path is the longest path; its length is the sum of its
     weights.

The trace (times in us from 0; one GPU, streams 7 and 20; host threads
main (tid 1) and worker (tid 2)):

  main  aten::step            [0, 100]
          cudaLaunchKernel    [10, 20]  corr 1 -> k_a on stream 7  [30, 50]
          cudaLaunchKernel    [22, 28]  corr 2 -> k_b on stream 20 [32, 70]
          cudaEventRecord     [30, 33]  corr 3 (on stream 20)
          cudaEventSynchronize[35, 72]  corr 4, Event Sync [36, 71]
                                        waits on stream 20, record corr 3
          cudaLaunchKernel    [75, 80]  corr 5 -> k_c on stream 7  [85, 150]
          aten::add           [82, 95]
        cudaDeviceSynchronize [105, 152] corr 6, Context Sync [106, 151]
        aten::tail            [155, 170]
  worker aten::worker         [5, 120]
           aten::mm           [10, 110]   (a decoy: 115 us of its own)

The longest path, worked out by the rules (distance from aten::step's
start at each instant):
  aten::step start            0
  cudaLaunchKernel#1 start   10  (+10, rule 2)
  cudaLaunchKernel#1 end     20  (+10)
  cudaLaunchKernel#2 start   22  (+2, sibling end -> start)
  k_b start                  32  (+10, launch delay: stream 20 idle)
  k_b end                    70  (+38)
  cudaEventSynchronize end   70  (+0, event sync: k_b is the last launch
                                  onto stream 20 before the record at 30;
                                  the host way gives 35)
  cudaLaunchKernel#5 start   73  (+3, 72 -> 75)
  k_c start                  83  (+10, launch delay: k_a ended at 50)
  k_c end                   148  (+65)
  cudaDeviceSynchronize end 148  (+0, device sync; the host way gives 98)
  aten::tail start          148  (+0, top-level order)
  aten::tail end            163  (+15)
13 instants, 12 edges (2 launch, 0 kernel-kernel, 2 sync), 9 events met in
this order: aten::step, cudaLaunchKernel#1, cudaLaunchKernel#2, k_b,
cudaEventSynchronize, cudaLaunchKernel#5, k_c, cudaDeviceSynchronize,
aten::tail. Per event, the weights HTA attributes to it (an edge from a
start: its event's; from an end to an end: the end's event's; from an end
to a start: the parent's) and the delay into a kernel (launch or
kernel-kernel):
  aten::step 15 (10 + 2 + 3), cudaLaunchKernel#1 10, cudaLaunchKernel#2 0,
  k_b 38 (delay 10), cudaEventSynchronize 0, cudaLaunchKernel#5 0,
  k_c 65 (delay 10), cudaDeviceSynchronize 0, aten::tail 15.
The path runs from 0 to 170 us (the whole 170 us step): 143 us working
(15 + 10 + 38 + 65 + 15), 20 us of launch delays, 7 us waiting (the sync
and top-level edges weigh 0: 148 -> 155 on the clock); 163 us of weights.
"""
WAIT = """
With --wait, another trace, for rule 3b (one thread, streams 7 and 20):

  main  aten::step            [0, 60]
          cudaLaunchKernel    [5, 10]   corr 1 -> k_x on stream 20 [12, 50]
          cudaEventRecord     [11, 13]  corr 2 (on stream 20)
          cudaStreamWaitEvent [14, 16]  corr 3, Stream Wait Event [15, 16]:
                                        stream 7 waits on stream 20, corr 2
          cudaLaunchKernel    [18, 22]  corr 4 -> k_y on stream 7  [52, 70]
        cudaDeviceSynchronize [62, 72]  corr 5
        aten::tail            [75, 80]

k_y waits for k_x (the last launch onto stream 20 before the record), which
ends at 50, after k_y's launch at 18: so no launch edge into k_y (stream 7
idle or not), only the wait. The path:
  aten::step start 0, cudaLaunchKernel#1 start 5 (+5), k_x start 12 (+7,
  launch delay), k_x end 50 (+38), k_y start 50 (+0, the wait), k_y end 68
  (+18), cudaDeviceSynchronize end 68 (+0), aten::tail start 68 (+0),
  aten::tail end 73 (+5);
the host way to the sync's end gives 60. 9 instants, 8 edges (1 launch, 0
kernel-kernel, 2 sync), 6 events: aten::step 5, cudaLaunchKernel#1 0, k_x
38 (delay 7), k_y 18, cudaDeviceSynchronize 0, aten::tail 5; from 0 to 80
us: 66 us working, 7 of delays, 7 waiting. Without rule 3b, k_y would have
a launch edge of 34 us from its call (start 18 at distance 18): 52, 70,
and 75 in all, through cudaLaunchKernel#4 instead of k_x.
"""
STREAM_SYNC = """
With --stream-sync, a third (one thread, stream 7): cudaLaunchKernel
[0, 5] corr 1 -> k on stream 7 [10, 100]; cudaStreamSynchronize [20, 102]
corr 2 with its Stream Sync [21, 101] on stream 7; aten::after [110, 120].
The sync's end waits for k (the last kernel to start on stream 7 before
the Stream Sync's end): launch start 0, k start 10 (+10, launch delay), k
end 100 (+90), sync end 100 (+0), aten::after start 100 (+0, top-level
order), its end 110 (+10): 6 instants, 5 edges (1 launch, 1 sync), 4
events (cudaLaunchKernel 0, k 90 with delay 10, cudaStreamSynchronize 0,
aten::after 10); 0 to 120 us: 100 working, 10 of delays, 10 waiting.
Without the Stream Sync the path would end at k's end (100 of weights).
"""
__doc__ += WAIT + STREAM_SYNC

import json
import sys

PID_CPU, PID_GPU = 100, 0


def x(name, cat, pid, tid, ts, end, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
            "ts": ts, "dur": end - ts, "args": args}


def meta(name, pid, tid, args):
    return {"ph": "M", "name": name, "pid": pid, "tid": tid, "args": args}


def wait_events():
    return [
        meta("process_name", PID_CPU, 0, {"name": "python3"}),
        meta("process_labels", PID_CPU, 0, {"labels": "CPU"}),
        meta("process_name", PID_GPU, 0, {"name": "python3"}),
        meta("process_labels", PID_GPU, 0, {"labels": "GPU 0"}),
        meta("thread_name", PID_GPU, 7, {"name": "stream 7 "}),
        meta("thread_name", PID_GPU, 20, {"name": "stream 20 "}),
        x("aten::step", "cpu_op", PID_CPU, 1, 0, 60),
        x("cudaLaunchKernel", "cuda_runtime", PID_CPU, 1, 5, 10, correlation=1),
        x("cudaEventRecord", "cuda_runtime", PID_CPU, 1, 11, 13, correlation=2),
        x("cudaStreamWaitEvent", "cuda_runtime", PID_CPU, 1, 14, 16, correlation=3),
        x("cudaLaunchKernel", "cuda_runtime", PID_CPU, 1, 18, 22, correlation=4),
        x("cudaDeviceSynchronize", "cuda_runtime", PID_CPU, 1, 62, 72, correlation=5),
        x("aten::tail", "cpu_op", PID_CPU, 1, 75, 80),
        x("k_x", "kernel", PID_GPU, 20, 12, 50, correlation=1, stream=20, device=0),
        x("Stream Wait Event", "cuda_sync", PID_GPU, 7, 15, 16, correlation=3, stream=7,
          wait_on_stream=20, wait_on_cuda_event_record_corr_id=2, device=0),
        x("k_y", "kernel", PID_GPU, 7, 52, 70, correlation=4, stream=7, device=0),
    ]


def stream_sync_events():
    return [
        meta("process_labels", PID_CPU, 0, {"labels": "CPU"}),
        meta("process_labels", PID_GPU, 0, {"labels": "GPU 0"}),
        meta("thread_name", PID_GPU, 7, {"name": "stream 7 "}),
        x("cudaLaunchKernel", "cuda_runtime", PID_CPU, 1, 0, 5, correlation=1),
        x("k", "kernel", PID_GPU, 7, 10, 100, correlation=1, stream=7, device=0),
        x("cudaStreamSynchronize", "cuda_runtime", PID_CPU, 1, 20, 102, correlation=2),
        x("Stream Sync", "cuda_sync", PID_GPU, 7, 21, 101, correlation=2, stream=7,
          device=0),
        x("aten::after", "cpu_op", PID_CPU, 1, 110, 120),
    ]


def main():
    other = {"--wait": wait_events, "--stream-sync": stream_sync_events}
    if sys.argv[1] in other:
        with open(sys.argv[2], "w") as f:
            json.dump({"schemaVersion": 1, "traceEvents": other[sys.argv[1]]()}, f, indent=0)
            f.write("\n")
        return
    ev = [
        meta("process_name", PID_CPU, 0, {"name": "python3"}),
        meta("process_labels", PID_CPU, 0, {"labels": "CPU"}),
        meta("process_name", PID_GPU, 0, {"name": "python3"}),
        meta("process_labels", PID_GPU, 0, {"labels": "GPU 0"}),
        meta("thread_name", PID_GPU, 7, {"name": "stream 7 "}),
        meta("thread_name", PID_GPU, 20, {"name": "stream 20 "}),
        meta("thread_name", PID_CPU, 1, {"name": "thread 1 (main)"}),
        meta("thread_name", PID_CPU, 2, {"name": "thread 2 (worker)"}),
        x("aten::step", "cpu_op", PID_CPU, 1, 0, 100),
        x("cudaLaunchKernel", "cuda_runtime", PID_CPU, 1, 10, 20, correlation=1),
        x("cudaLaunchKernel", "cuda_runtime", PID_CPU, 1, 22, 28, correlation=2),
        x("cudaEventRecord", "cuda_runtime", PID_CPU, 1, 30, 33, correlation=3),
        x("cudaEventSynchronize", "cuda_runtime", PID_CPU, 1, 35, 72, correlation=4),
        x("cudaLaunchKernel", "cuda_runtime", PID_CPU, 1, 75, 80, correlation=5),
        x("aten::add", "cpu_op", PID_CPU, 1, 82, 95),
        x("cudaDeviceSynchronize", "cuda_runtime", PID_CPU, 1, 105, 152, correlation=6),
        x("aten::tail", "cpu_op", PID_CPU, 1, 155, 170),
        x("aten::worker", "cpu_op", PID_CPU, 2, 5, 120),
        x("aten::mm", "cpu_op", PID_CPU, 2, 10, 110),
        x("k_a", "kernel", PID_GPU, 7, 30, 50, correlation=1, stream=7, device=0),
        x("k_b", "kernel", PID_GPU, 20, 32, 70, correlation=2, stream=20, device=0),
        x("Event Sync", "cuda_sync", PID_GPU, 20, 36, 71, correlation=4, stream=20,
          wait_on_stream=20, wait_on_cuda_event_record_corr_id=3, device=0),
        x("k_c", "kernel", PID_GPU, 7, 85, 150, correlation=5, stream=7, device=0),
        x("Context Sync", "cuda_sync", PID_GPU, 7, 106, 151, correlation=6,
          stream=-1, device=0),
    ]
    with open(sys.argv[1], "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
