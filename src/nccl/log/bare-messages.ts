/**
 * NCCL INFO messages with nothing before them: a paste or a collector that kept only each record's message
 * (`Using network IBext_v8`, no `host:pid:tid [dev] NCCL INFO`). Only openings NCCL's own formats print are read so
 * (v2.24.3-1 in https://github.com/NVIDIA/nccl): src/init.cc `"Using network %s"`, `"comm %p rank %d nRanks %d nNodes
 * %d localRanks %d …"`, `"%s comm %p rank %d nranks %d cudaDev %d … - Init COMPLETE"`; src/bootstrap.cc `"Bootstrap:
 * Using%s"` (`Bootstrap : Using` before 2.23); src/net.cc `"NET/Plugin: …"`; src/transport/net_ib.cc and
 * net_socket.cc `"NET/IB : Using%s …"`, `"NET/Socket : Using%s"`; the transports' `"Channel %02d/%d : %d[%d] -> %d[%d]
 * via …"`; and `"%s set by environment to %s"` (src/misc/param.cc). Recent releases add src/plugin/net.cc's `"Initialized
 * NET plugin %s"` and `"Failed to initialize NET plugin %s"`, src/graph/topo.cc's `"NET/%s : GPU Direct RDMA %s for HCA
 * %d '%s'"` (the plugin's name after `NET/`; the message alone where a page cut that off) and src/transport/generic.cc's
 * `"Connected all rings, use ring PXN %d GDR %d"`, src/init.cc's `"DMA-BUF is available on GPU device %d"` (master of
 * https://github.com/NVIDIA/nccl); aws-ofi-nccl's own
 * messages start `NET/OFI ` (https://github.com/aws/aws-ofi-nccl). An `Init COMPLETE` line a note cut to its ranks
 * (`rank 15 nranks 16 ... Init COMPLETE`, the API and pointers before it and the devices after it elided; seen in
 * Chinese notes committed to a public repository, index-file 70849613260) is read too.
 */
export const BARE_INFO =
  /^(?:Using network [A-Za-z]|NET\/(?:IB|Socket|Plugin) ?: ?\S|NET\/OFI \S|(?:NET\/[\w -]+ : )?GPU Direct RDMA (?:Enabled|Disabled) for HCA |(?:Initialized|Failed to initialize) NET plugin \S+\s*$|Connected all rings, use ring PXN \d+ GDR \d+\s*$|DMA-BUF is available on GPU device \d+\s*$|Bootstrap ?: Using |comm (?:0x[0-9a-f]+|\.{3}|…) rank \d+ nRanks \d+ nNodes \d+|Assigned NET plugin \S+ to comm|(?:\[Rank \d+\] )?nccl\w*Comm(?:Init|Split|Shrink)\w* comm 0x[0-9a-f]+ rank \d+ nranks \d+ |rank \d+ nranks \d+ (?:\.{3}|…) (?:.* )?Init COMPLETE\s*$|Channel \d\d(?:\/\d+)? : \d+\[[0-9a-f]+\] -> \d+\[[0-9a-f]+\] (?:\[(?:send|receive)\] +)?via |NCCL_[A-Z0-9_]+ set by environment to )/;

/**
 * A connection line cut down to its ranks and transport (`11[3d000] -> 4[9c000] [send] via NET/IB/0/GDRDMA`, the
 * transports' `"%d[%d] -> %d[%d]%s via %s"` after `Channel %02d/%d : `, src/transport/net.cc, p2p.cc, shm.cc): NCCL's
 * shape alone, quoted so in a question (seen at https://github.com/NVIDIA/nccl/issues/897); or with all before `via`
 * elided (`... via NET/AWS Libfabric/0/GDRDMA/Shared`, a note quoting the line that matters), or cut off
 * (`via NET/IB/0/GDRDMA` alone on its line, a runbook's list of the lines to look for, seen in Chinese notes committed
 * to a public repository, index-file 70849613260).
 */
export const CONNECTION_TAIL =
  /^(?:\d+\[[0-9a-f]+\] -> \d+\[[0-9a-f]+\] (?:\[(?:send|receive)\] )?|(?:\.{3}|…) )?via (?:NET|P2P|SHM)\/\S/;
